import Foundation
import Testing
import WaterProtocol

/// Away from home (issue 12): what the other commands show and save while the server is stopped,
/// and the order in which it all goes once it is back, through the real binaries.
@Suite("Offline: drinks, habits and the list while away, end to end", .serialized)
struct WhileAwayTests {
    @Test(
        "while away: today and week merge what waits, marked; undo takes a waiting drink back; edit and rm find today's drinks"
    )
    func seenWhileAway() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        let first = try mum.json(WaterV1.LogWaterResponse.self, ["log", "300"]).entry!
        let second = try mum.json(WaterV1.LogWaterResponse.self, ["log", "200"]).entry!
        #expect(try mum.run(["week"]).status == 0)
        #expect(server.stop() == 0)

        #expect(try mum.run(["log", "250"]).status == 0)
        #expect(try mum.run(["log", "150"]).status == 0)
        let taken = try mum.run(["undo"])
        #expect(
            taken.output.hasPrefix("took back a drink saved on this computer and not sent yet: log 150 ml"),
            "\(taken.output)")
        let short = String(first.entryID.filter { $0 != "-" }.dropFirst(4).prefix(8))
        let edit = try mum.run(["edit", short, "--amount", "350"])
        #expect(
            edit.status == 0 && edit.output.hasPrefix("saved on this computer: change drink \(short) to 350 ml"),
            "\(edit.output) \(edit.error)")
        #expect(try mum.run(["undo"]).output.contains("log 250 ml"))
        // Undo with no drink of its own waiting: the one logged last on the server, by its id.
        let again = try mum.run(["undo"])
        let secondShort = String(second.entryID.filter { $0 != "-" }.dropFirst(4).prefix(8))
        #expect(
            again.output.hasPrefix("saved on this computer: remove drink \(secondShort)"),
            "\(again.output) \(again.error)")
        let today = try mum.run(["today"])
        #expect(today.output.contains("as this computer last heard"), "\(today.output)")
        #expect(today.output.contains("350 / 2000 ml"), "200 removed, 300 made 350 while away: \(today.output)")
        #expect(!today.output.contains("+200 ml"), "\(today.output)")
        let week = try mum.run(["week"])
        #expect(week.status == 0 && week.output.contains("  350 / 2000 ml"), "\(week.output)")
        // A second undo while away takes the drink before, not the same one again.
        let third = try mum.run(["undo"])
        #expect(third.output.hasPrefix("saved on this computer: remove drink \(short)"), "\(third.output)")

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        // The edit of the first, the removal of the second, then of the first: in that order.
        let back = try mum.run(["--json", "today"])
        #expect(back.error.contains("sent 3 writes saved on this computer"), "\(back.error)")
        let sent = try JSONDecoder().decode(WaterV1.GetTodayResponse.self, from: Data(back.output.utf8))
        #expect(sent.entries.isEmpty && sent.day?.amountMl == 0, "\(back.output)")
        #expect(server.stop() == 0)
    }

    @Test("habits and the household's list while away: check, uncheck, add, done and undone wait, then go in order")
    func habitsAndListWhileAway() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        #expect(try mum.run(["habit", "add", "Run"]).status == 0)
        #expect(try mum.run(["todo", "add", "buy filters"]).status == 0)
        #expect(try mum.run(["habit", "ls"]).status == 0)  // what this computer knows of them
        #expect(try mum.run(["todo", "ls"]).status == 0)
        #expect(server.stop() == 0)

        for words in [
            ["habit", "check", "Read"], ["habit", "check", "Run"], ["habit", "uncheck", "Run"],
            ["todo", "add", "call grandma"], ["todo", "done", "1"], ["todo", "undone", "1"], ["todo", "done", "1"],
        ] {
            let saved = try mum.run(words)
            #expect(saved.status == 0 && saved.output.hasPrefix("saved on this computer: "), "\(words): \(saved.error)")
        }
        let away = try mum.run(["habit", "ls"])
        #expect(away.status == 69, "what needs the server still says so: \(away.error)")

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let habits = try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits
        let checked = Dictionary(uniqueKeysWithValues: habits.map { ($0.habit!.name, $0.checked.filter { $0 }.count) })
        #expect(checked == ["Read": 1, "Run": 0])
        let items = try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items
        #expect(items.map(\.text) == ["buy filters", "call grandma"] && items.map(\.done) == [true, false])
        #expect(server.stop() == 0)
    }
}
