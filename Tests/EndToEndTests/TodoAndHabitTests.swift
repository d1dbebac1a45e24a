import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync

@Suite("The todo list and habits, end to end", .serialized)
struct TodoAndHabitTests {
    @Test("two members edit the list at once from two connections: one order, nothing lost, kept across a restart")
    func concurrentList() throws {
        var server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        let address = server.address
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        for (name, password) in [("mum", adminPassword), ("dad", "dad-password-1")] {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let client = try WaterClient(
                        configuration: ClientConfiguration(server: address, security: .plaintext))
                    try client.login(username: name, password: password)
                    for n in 0..<40 {
                        let item = try client.call(
                            WaterV1.AddTodoRequest(itemID: client.newID().description, text: "\(name) task \(n)"))
                        if n % 3 == 0 { _ = try client.call(WaterV1.ToggleTodoRequest(itemID: item.item!.itemID)) }
                        if n % 5 == 0 {
                            _ = try client.call(WaterV1.MoveTodoRequest(itemID: item.item!.itemID, position: 0))
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(name): \(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let dad = try server.client("dad", password: "dad-password-1")
        let seenByMum = try mum.call(WaterV1.ListTodosRequest()).items
        let seenByDad = try dad.call(WaterV1.ListTodosRequest()).items
        #expect(seenByMum == seenByDad)
        #expect(seenByMum.count == 80)
        #expect(Set(seenByMum.map(\.text)).count == 80)
        #expect(seenByMum.map(\.position) == (0..<80).map(UInt32.init))
        #expect(seenByMum.filter(\.done).count == 28)  // n % 3 == 0 for n < 40: 14 each
        #expect(seenByMum.filter(\.done).allSatisfy { !$0.completedBy.isEmpty })
        server = try server.restarted()
        let after = try server.client("dad", password: "dad-password-1").call(WaterV1.ListTodosRequest()).items
        #expect(after == seenByMum)
        #expect(server.stop() == 0)
    }

    @Test("the list through the command line: add, ls, done, mv, rm, and every bad input refused, changing nothing")
    func listCommands() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["todo", "ls"]).output.contains("the household's list is empty"))
        for text in ["buy water filters", "call grandma", "fix the tap"] {
            #expect(try mum.run(["todo", "add", text]).status == 0)
        }
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: call grandma"))
        #expect(try mum.run(["todo", "mv", "3", "1"]).status == 0)
        let list = try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items
        #expect(list.map(\.text) == ["fix the tap", "buy water filters", "call grandma"])
        #expect(list.map(\.done) == [false, false, true] && list[2].completedBy == "mum" && list[0].addedBy == "mum")
        #expect(try mum.run(["todo", "rm", "2"]).status == 0)

        // Bad input: each refused with a clear line, and the list unchanged.
        let before = try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items
        let short = try mum.run(["todo", "add", "abc"])
        #expect(short.status == 65 && short.error.contains("longer than 3 characters"))
        #expect(try mum.run(["todo", "add", "💧💧💧"]).status == 65)
        #expect(try mum.run(["todo", "add", String(repeating: "x", count: 201)]).status == 65)
        #expect(try mum.run(["todo", "done", "9"]).status == 65)
        #expect(try mum.run(["todo", "rm", "deadbeef"]).status == 65)
        let far = try mum.run(["todo", "mv", "1", "7"])
        #expect(far.status == 65 && far.error.contains("position"))
        #expect(try mum.run(["todo", "mv", "1", "0"]).status == 64)
        #expect(try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items == before)
        #expect(try mum.run(["todo", "add", "💧💧💧💧"]).status == 0)
        #expect(server.stop() == 0)
    }

    @Test("habits: a week's check list, the board's column, a future day refused, private to their member")
    func habits() throws {
        var server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["habit", "ls"]).output.contains("no habits yet"))
        #expect(try mum.run(["habit", "add", "read", "--icon", "book", "--color", "green"]).status == 0)
        #expect(try mum.run(["habit", "add", "stretch", "--icon", "sportscourt", "--color", "coral"]).status == 0)
        for day in ["2026-11-23", "2026-11-25", "2026-11-26"] {
            #expect(try mum.run(["habit", "check", "read", "--day", day]).status == 0)
        }
        #expect(try mum.run(["habit", "check", "stretch"]).status == 0)
        #expect(try mum.run(["habit", "uncheck", "read", "--day", "2026-11-25"]).status == 0)
        let week = try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"])
        #expect(week.week == "2026-W48" && week.dates.first == "2026-11-23")
        #expect(week.habits.map { $0.habit?.name } == ["stretch", "read"])  // newest first
        #expect(week.habits[1].checked == [true, false, false, true, false, false, false])
        #expect(week.habits[0].checked == [false, false, false, true, false, false, false])
        let grid = try mum.run(["habit", "ls"]).output
        #expect(grid.contains("Mo Tu We Th Fr Sa Su") && grid.contains("read"))
        #expect(try mum.json(WaterV1.GetBoardResponse.self, ["board"]).board?.rows.first?.habitCheckins == 3)

        let future = try mum.run(["habit", "check", "read", "--day", "2026-11-27"])
        #expect(future.status == 65 && future.error.contains("future"))
        #expect(try mum.run(["habit", "add", "draw", "--icon", "paintbrush"]).status == 65)
        #expect(try mum.run(["habit", "add", "draw", "--color", "teal"]).status == 65)
        #expect(try mum.run(["habit", "add", "Read"]).status == 65)  // a name she already has
        #expect(try mum.run(["habit", "check", "juggle"]).status == 65)

        // Another member sees none of mum's habits and cannot touch them.
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let dad = try server.client("dad", password: "dad-password-1")
        #expect(try dad.call(WaterV1.ListHabitWeekRequest()).habits.isEmpty)
        let mumsHabit = try #require(week.habits.first?.habit?.habitID)
        #expect(throws: WaterError.self) { try dad.call(WaterV1.DeleteHabitRequest(habitID: mumsHabit)) }

        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(thursday)"])
        let again = try server.cli("mum").json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"])
        #expect(again == week)
        #expect(try server.cli("mum").run(["habit", "rm", "stretch"]).status == 0)
        #expect(try server.cli("mum").json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits.count == 1)
        #expect(server.stop() == 0)
    }
}
