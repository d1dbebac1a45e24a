import Foundation
import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// The household's chores (issue 33) through the real server and command line, on a household
/// in Europe/Berlin: the server's clock is moved by restarting it with `--clock` (the port kept,
/// so every member's login and outbox stay theirs).
@Suite("Chores, end to end", .serialized)
struct ChoresTests {
    static let berlin = ZoneInfo.system.zone(named: "Europe/Berlin")!

    /// `day` at `hour`:`minute` on Berlin's wall clock, as the server's `--clock` takes it.
    static func clock(_ day: String, _ hour: Int, _ minute: Int = 0) -> String {
        "\(berlin.unixMilliseconds(of: LocalDate(day)!, hour: hour, minute: minute))"
    }

    static func serve(_ day: String, _ hour: Int, _ minute: Int = 0, port: UInt16? = nil) -> [String] {
        ["--clock", clock(day, hour, minute), "--time-zone", "Europe/Berlin"]
            + (port.map { ["--listen", "127.0.0.1:\($0)"] } ?? [])
    }

    static func list(_ person: CommandLineUser) throws -> [WaterV1.TodoItem] {
        try person.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items
    }

    static func history(_ person: CommandLineUser, _ arguments: [String] = []) throws -> [WaterV1.TodoCompletion] {
        try person.json(WaterV1.ListTodoHistoryResponse.self, ["todo", "history"] + arguments).entries
    }

    /// ann, ben, dad and kim (a child, dad her guardian) added by mum, each logged in.
    static func family(_ server: ServerProcess) throws -> [String: CommandLineUser] {
        let mum = try server.loggedInAdmin()
        var people = ["mum": mum]
        for name in ["ann", "ben", "dad"] { people[name] = try server.addedMember(name, by: mum) }
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)
        #expect(try mum.run(["member", "guardian", "kim", "add", "dad"]).status == 0)
        return people
    }

    @Test(
        "a family's two weeks and a third: a weekly rotation, a sick day passing the turn on, a guardian marking a child's chore, another member doing ann's turn"
    )
    func rotationWeeks() throws {
        var server = try ServerProcess.fresh(Self.serve("2027-01-04", 10))  // a Monday
        let port = server.address.port
        let people = try Self.family(server)
        let (ann, ben, dad) = (people["ann"]!, people["ben"]!, people["dad"]!)
        let added = try ann.run([
            "todo", "add", "bins out", "--due", "mon 19:00", "--every", "week", "--rotate", "ann,ben,kim",
        ])
        #expect(
            added.status == 0 && added.output.contains("due Mon 2027-01-04 19:00, every week, for ann"),
            "\(added.output) \(added.error)")
        #expect(try ann.run(["todo", "add", "buy water filters"]).status == 0)
        var items = try Self.list(ann)
        #expect(items.map(\.text) == ["bins out", "buy water filters"])
        #expect(
            items[0].rotation == ["ann", "ben", "kim"] && items[0].assignee == "ann" && items[0].dueDay == "2027-01-04")
        #expect(try ann.json(WaterV1.ListTodosResponse.self, ["todo", "mine"]).items.map(\.text) == ["bins out"])
        #expect(try ben.json(WaterV1.ListTodosResponse.self, ["todo", "mine"]).items.isEmpty)

        // Week 1: ann's turn, done on the day; due next Monday, ben's turn. Done again: once.
        let done = try ann.run(["todo", "done", "1"])
        #expect(
            done.output.contains("done: bins out; next (due Mon 2027-01-11 19:00, every week, for ben"),
            "\(done.output)")
        items = try Self.list(ann)
        #expect(items[0].dueDay == "2027-01-11" && items[0].assignee == "ben" && !items[0].overdue)

        // Week 2, Monday: ben is sick; the turn passes to kim, which dad marks for her on Tuesday.
        server = try server.restarted(Self.serve("2027-01-11", 8, port: port))
        #expect(try ben.run(["excuse", "2027-01-11", "--reason", "flu"]).status == 0)
        items = try Self.list(ann)
        #expect(items[0].assignee == "kim", "\(items[0])")
        server = try server.restarted(Self.serve("2027-01-12", 9, port: port))
        items = try Self.list(dad)
        #expect(items[0].overdue && items[0].dueDay == "2027-01-11")
        #expect(try dad.run(["todo", "ls"]).output.contains("OVERDUE"))
        // A member who is not kim's guardian may not mark it for her.
        #expect(try ann.run(["todo", "done", "1", "--for", "kim"]).status == 77)
        let marked = try dad.run(["todo", "done", "1", "--for", "kim"])
        #expect(marked.status == 0, "\(marked.error)")
        items = try Self.list(dad)
        // Counted from the due day: still a Monday, and the rotation goes on after kim: ann.
        #expect(items[0].dueDay == "2027-01-18" && items[0].assignee == "ann" && !items[0].overdue)

        // Week 3: ann's turn, ben does it: the credit is ben's, and ben's turn comes next.
        server = try server.restarted(Self.serve("2027-01-18", 20, port: port))
        #expect(try ben.run(["todo", "done", "1"]).status == 0)
        items = try Self.list(mum(people))
        #expect(items[0].dueDay == "2027-01-25" && items[0].assignee == "ben")

        let history = try Self.history(mum(people))
        #expect(history.map(\.doneBy) == ["ben", "kim", "ann"])
        #expect(history.map(\.turnOf) == ["ann", "kim", "ann"])
        #expect(history.map(\.markedBy) == ["", "dad", ""])
        #expect(history.map(\.dueDay) == ["2027-01-18", "2027-01-11", "2027-01-04"])
        let text = try ann.run(["todo", "history", "1"]).output
        #expect(text.contains("done by kim, marked by dad") && text.contains("done by ben (ann's turn)"), "\(text)")

        // Undone takes the latest back (ben's), and a repeat changes nothing; done again, and a
        // repeat finds it done for now.
        #expect(try ben.run(["todo", "undone", "1"]).status == 0)
        #expect(try ben.run(["todo", "undone", "1"]).status == 0)
        #expect(try Self.list(ben)[0].dueDay == "2027-01-18")
        #expect(try Self.history(ben).count == 2)
        #expect(try ben.run(["todo", "done", "1"]).status == 0)
        let twice = try ben.run(["todo", "done", "1"])
        #expect(
            twice.status == 0 && twice.output.hasPrefix("nothing changed: bins out is done for now"), "\(twice.output)")
        #expect(try Self.history(ben).count == 3)

        // Done for now, it is not skipped either; in week 4, when it is due, it is: nobody did
        // it, and the turn stays with ben.
        #expect(try ben.run(["todo", "skip", "1"]).output.hasPrefix("nothing changed: bins out is done for now"))
        server = try server.restarted(Self.serve("2027-01-25", 20, port: port))
        let skipped = try ben.run(["todo", "skip", "1"])
        #expect(skipped.output.contains("next (due Mon 2027-02-01 19:00, every week, for ben"), "\(skipped.output)")
        #expect(try Self.history(ben).first?.skipped == true)

        // Kept across a restart, as the log and a snapshot have them.
        let before = try Self.history(ben)
        server = try server.restarted(Self.serve("2027-01-25", 21, port: port))
        #expect(try Self.history(ben) == before)
        try Self.roundTrip(from: server, people)
        #expect(server.stop() == 0)
        // check reads the household archive, chores and history, as healthy; a backup restores it.
        let checked = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(checked.status == 0, "\(checked.output) \(checked.error)")
        let copy = server.dataDirectory + "-backup"
        #expect(try run("water-server", ["backup", "--data", server.dataDirectory, "--to", copy]).status == 0)
        let restored = server.dataDirectory + "-restored"
        #expect(try run("water-server", ["restore", "--from", copy, "--data", restored]).status == 0)
        let again = try ServerProcess(dataDirectory: restored, options: Self.serve("2027-01-25", 22))
        #expect(try Self.history(again.cli("ben-restored").loggedIn("ben", "ben-password-1")) == before)
        #expect(again.stop() == 0)
    }

    /// The list and its history exported, read into a fresh household with the same members,
    /// are the same there; read a second time, nothing is added.
    static func roundTrip(from server: ServerProcess, _ people: [String: CommandLineUser]) throws {
        let file = server.dataDirectory + "-todo.json"
        let exported = try people["ann"]!.run(["todo", "export", "--output", file])
        #expect(exported.status == 0 && exported.error.contains("2 items and 4 completions"), "\(exported.error)")
        let other = try ServerProcess.fresh(Self.serve("2027-01-25", 22))
        let family = try Self.family(other)
        let imported = try family["ben"]!.json(WaterV1.ImportTodosResponse.self, ["todo", "import", file])
        #expect(imported.itemsAdded == 2 && imported.completionsAdded == 4)
        let twice = try family["ben"]!.json(WaterV1.ImportTodosResponse.self, ["todo", "import", file])
        #expect(twice.itemsAdded == 0 && twice.completionsAdded == 0)
        #expect(try Self.list(family["ann"]!) == Self.list(people["ann"]!))
        #expect(try Self.history(family["ann"]!) == Self.history(people["ann"]!))
        #expect(other.stop() == 0)
    }

    private func mum(_ people: [String: CommandLineUser]) -> CommandLineUser { people["mum"]! }

    @Test("removing a member takes them out of every rotation, restoring puts them back")
    func removedFromRotation() throws {
        let server = try ServerProcess.fresh(Self.serve("2027-01-04", 10))
        let people = try Self.family(server)
        let (mum, ann) = (people["mum"]!, people["ann"]!)
        #expect(try ann.run(["todo", "add", "hoover", "--every", "week", "--rotate", "ben,ann"]).status == 0)
        #expect(try Self.list(ann)[0].assignee == "ben")
        #expect(try mum.run(["member", "rm", "ben", "--yes"]).status == 0)
        var item = try Self.list(ann)[0]
        #expect(item.rotation == ["ann"] && item.assignee == "ann", "\(item)")
        #expect(try ann.run(["todo", "done", "1"]).status == 0)
        #expect(try mum.run(["member", "restore", "ben"]).status == 0)
        item = try Self.list(ann)[0]
        #expect(item.rotation == ["ben", "ann"] && item.assignee == "ben", "\(item)")
        // Each new field out of range is refused, naming it, and nothing is added.
        for (arguments, field) in [
            (["--every", "fortnightly"], "every"), (["--every", "53 weeks"], "every"),
            (["--due", "2101-01-01"], "due"),
            (["--every", "week", "--rotate", "ann,zed"], "rotate"), (["--for", "zed"], "for_member"),
            (["--every", "week", "--rotate", "ann,ann"], "rotate"),
        ] {
            let refused = try ann.run(["todo", "add", "one more chore"] + arguments)
            #expect(refused.status == 65 && refused.error.contains(field), "\(arguments): \(refused.error)")
        }
        #expect(try Self.list(ann).count == 1)
        #expect(server.stop() == 0)
    }

    @Test("a monthly chore across a month end and a change to summer time, on the household's calendar")
    func monthlyAcrossDST() throws {
        var server = try ServerProcess.fresh(Self.serve("2027-01-31", 8))
        let port = server.address.port
        let mum = try server.loggedInAdmin()
        #expect(
            try mum.run(["todo", "add", "pay the water bill", "--due", "today 09:00", "--every", "month"]).status == 0)
        #expect(try mum.run(["todo", "done", "1"]).status == 0)
        #expect(try Self.list(mum)[0].dueDay == "2027-02-28")
        // 00:30 on 1 March in Berlin is still 28 February in UTC: the household's day is over.
        server = try server.restarted(Self.serve("2027-03-01", 0, 30, port: port))
        #expect(try Self.list(mum)[0].overdue)
        #expect(try mum.run(["todo", "done", "1"]).status == 0)
        var item = try Self.list(mum)[0]
        #expect(item.dueDay == "2027-03-31" && item.dueTime == "09:00" && !item.overdue)
        // Summer time began on 28 March: 09:00 is 07:00 UTC now, not 08:00.
        server = try server.restarted(Self.serve("2027-03-31", 8, 59, port: port))
        #expect(try !Self.list(mum)[0].overdue)
        server = try server.restarted([
            "--clock", "\(LocalDate("2027-03-31")!.daysSinceEpoch * 86_400_000 + 7 * 3_600_000 + 60_000)",
            "--time-zone", "Europe/Berlin", "--listen", "127.0.0.1:\(port)",
        ])
        #expect(try Self.list(mum)[0].overdue)
        #expect(try mum.run(["todo", "done", "1"]).status == 0)
        item = try Self.list(mum)[0]
        #expect(item.dueDay == "2027-04-30" && item.dueTime == "09:00")
        #expect(server.stop() == 0)
    }

    @Test("a chore done away from home waits in the outbox and counts once, however often it is sent")
    func offlineDoneOnce() throws {
        var server = try ServerProcess.fresh(Self.serve("2027-01-04", 10))
        let port = server.address.port
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["todo", "add", "water the plants", "--every", "mon,thu"]).status == 0)
        #expect(try mum.run(["todo", "ls"]).status == 0)
        #expect(server.stop() == 0)
        let saved = try mum.run(["todo", "done", "1"])
        #expect(
            saved.status == 0
                && saved.output.hasPrefix("saved on this computer: mark \"water the plants\" (due 2027-01-04) done"),
            "\(saved.output) \(saved.error)")
        // Checked offline by the server's rules.
        let bad = try mum.run(["todo", "add", "feed the fish", "--every", "13 months"])
        #expect(bad.status == 65 && bad.error.contains("every"), "\(bad.error)")
        server = try server.restarted(Self.serve("2027-01-05", 10, port: port))
        let items = try Self.list(mum)
        #expect(items[0].dueDay == "2027-01-07")
        // The same done again (a client that did not hear the reply): nothing more.
        let client = try server.client("mum", password: adminPassword)
        let again = try client.call(
            WaterV1.SetTodoDoneRequest(itemID: items[0].itemID, done: true, dueDay: "2027-01-04"))
        #expect(again.item?.dueDay == "2027-01-07")
        #expect(try Self.history(mum).count == 1)
        // A due day that does not read, or is not due yet, is refused naming due_day; so is a skip's.
        for dueDay in ["soon", "2027-01-11"] {
            for request in [
                {
                    _ = try client.call(WaterV1.SetTodoDoneRequest(itemID: items[0].itemID, done: true, dueDay: dueDay))
                },
                { _ = try client.call(WaterV1.SkipTodoRequest(itemID: items[0].itemID, dueDay: dueDay)) },
            ] as [() throws -> Void] {
                let error = #expect(throws: WaterError.self) { try request() }
                #expect(
                    error?.code == .invalidArgument && error?.violations.first?.field == "due_day",
                    "\(String(describing: error))")
            }
        }
        // A skip away from home waits too, naming the occurrence this computer saw.
        #expect(try mum.run(["todo", "ls"]).status == 0)
        #expect(server.stop() == 0)
        let skip = try mum.run(["todo", "skip", "1"])
        #expect(
            skip.output.hasPrefix("saved on this computer: skip \"water the plants\" (due 2027-01-07)"),
            "\(skip.output) \(skip.error)")
        server = try server.restarted(Self.serve("2027-01-07", 10, port: port))
        #expect(try Self.list(mum)[0].dueDay == "2027-01-11")
        #expect(try Self.history(mum).first?.skipped == true)
        let client2 = try server.client("mum", password: adminPassword)
        // A plain item cannot be skipped (item_id).
        let plain = try client2.call(WaterV1.AddTodoRequest(itemID: client2.newID().description, text: "call grandma"))
            .item!
        let skipped = #expect(throws: WaterError.self) {
            try client2.call(WaterV1.SkipTodoRequest(itemID: plain.itemID))
        }
        #expect(skipped?.violations.first?.field == "item_id")
        #expect(try Self.history(mum).count == 2)
        #expect(server.stop() == 0)
    }
}
