import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterTestSupport

/// A parent logs for a child (issue 20, item 4) through the real binaries: children with no
/// login, guardians and admins acting with --for, who made each entry, and admins made and
/// unmade.
@Suite("Children and guardians, end to end")
struct ChildrenTests {
    /// The family's Thursday (2026-11-26, UTC; the server's clock says 18:00):
    ///
    /// kim (a child, goal set to 1500 by dad):
    ///   08:15  200 ml milk  by dad   200 x 1.50 = 300
    ///   10:00  tea, kim's usual cup (250 ml)  by dad   250 x 1.00 = 250
    ///   12:00  bottle (a cup of kim's, 400 ml water)  by dad   400
    ///   15:00  150 ml water  by mum, edited to 250 by dad (still by mum)   250
    ///   17:00  100 ml by dad, taken back with undo --for kim
    ///   = 1200 counted of 1100 drunk, 1200 / 1500 = 80 %, 300 to go, 4 drinks
    /// dad: 300 ml tea (300) + 500 ml water (500) = 800 of 2000, 40 %
    /// mum: 250 ml milk = 375 of 2000, 18 %
    /// ann: nothing (every --for kim of hers is refused), 0 %
    /// The board by progress: kim 80 %, dad 40 %, mum 18 %, ann 0 %.
    @Test("a family's day with a child logged by a parent, tea, milk and a named cup: every figure by hand")
    func familyDay() throws {
        var server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for name in ["dad", "ann"] {
            #expect(
                try mum.run(["member", "add", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
        }
        let added = try mum.run(["member", "add", "kim", "--child"])
        #expect(added.status == 0 && added.output.contains("a child with no password"), "\(added.error)")
        let (dad, ann, kim) = (server.cli("dad"), server.cli("ann"), server.cli("kim"))
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try ann.run(["login", "ann", "--password-stdin"], input: "ann-password-1\n").status == 0)

        // A child cannot log in, whatever password is tried.
        for password in ["", "kim-password-1"] {
            let login = try kim.run(["login", "kim", "--password-stdin"], input: password + "\n")
            #expect(login.status != 0 && !login.output.contains("logged in"), "\(login.output)")
        }
        let refused = try kim.run(["login", "kim", "--password-stdin"], input: "kim-password-1\n")
        #expect(refused.status == 77 && refused.error.contains("kim is a child"), "\(refused.error)")

        // Not yet a guardian: refused (77) and nothing is written.
        let early = try dad.run(["log", "200", "milk", "--for", "kim"])
        #expect(early.status == 77 && early.error.contains("guardian"), "\(early.error)")
        #expect(try mum.run(["member", "guardian", "kim", "add", "dad"]).status == 0)
        let twice = try mum.run(["member", "guardian", "kim", "add", "dad"])
        #expect(twice.status == 0 && twice.output == "guardians of kim: dad\n", "\(twice.output) \(twice.error)")
        let notChild = try mum.run(["member", "guardian", "dad", "add", "mum"])
        // Issue 32, item 14: bad data (65), not a state the household could change.
        #expect(notChild.status == 65 && notChild.error.contains("dad is not a child"), "\(notChild.error)")

        #expect(try dad.run(["goal", "1500", "--for", "kim"]).status == 0)
        #expect(try dad.run(["cup", "add", "bottle", "400", "--for", "kim"]).status == 0)
        for (person, words, at) in [
            (dad, ["200", "milk"], "08:15"), (dad, ["tea"], "10:00"), (dad, ["bottle"], "12:00"),
            (mum, ["150"], "15:00"), (dad, ["100"], "17:00"),
        ] {
            let logged = try person.run(["log"] + words + ["--for", "kim", "--at", "2026-11-26 \(at)"])
            #expect(logged.status == 0 && logged.output.contains(" for kim "), "log \(words): \(logged.error)")
        }
        let undone = try dad.run(["undo", "--for", "kim"])
        #expect(undone.status == 0 && undone.output.hasPrefix("removed 100 ml"), "\(undone.output) \(undone.error)")
        let history = try dad.json(
            WaterV1.GetHistoryResponse.self, ["history", "--days", "1", "--entries", "--for", "kim"])
        let mums = try #require(history.entries.first { $0.madeBy == "mum" })
        let edited = try dad.json(
            WaterV1.EditWaterResponse.self, ["edit", mums.entryID, "--amount", "250", "--for", "kim"])
        #expect(edited.entry?.amountMl == 250 && edited.entry?.madeBy == "mum")

        for (person, words, at) in [
            (dad, ["300", "tea"], "09:00"), (dad, ["500"], "13:00"), (mum, ["250", "milk"], "07:30"),
        ] {
            #expect(try person.run(["log"] + words + ["--at", "2026-11-26 \(at)"]).status == 0)
        }

        // Anyone else is refused (77), for a child or a name nobody has; an admin is told there is none (65).
        for command in [
            ["log", "100", "--for", "kim"], ["today", "--for", "kim"], ["history", "--for", "kim"],
            ["goal", "--for", "kim"], ["cup", "--for", "kim"], ["habit", "ls", "--for", "kim"],
            ["today", "--for", "dad"], ["today", "--for", "nobody"],
        ] {
            let result = try ann.run(command)
            #expect(result.status == 77, "ann \(command): \(result.error)")
        }
        let nobody = try mum.run(["today", "--for", "nobody"])
        #expect(nobody.status == 65 && nobody.error.contains("no member called nobody"), "\(nobody.error)")

        let kims = try dad.json(WaterV1.GetTodayResponse.self, ["today", "--for", "kim"])
        #expect(kims.day?.amountMl == 1200 && kims.day?.rawMl == 1100 && kims.day?.goalMl == 1500)
        #expect(kims.day?.percent == 80 && kims.day?.remainingMl == 300 && kims.day?.count == 4)
        #expect(kims.entries.map(\.countedMl) == [250, 400, 250, 300])
        #expect(kims.entries.map(\.madeBy) == ["mum", "dad", "dad", "dad"])
        let text = try dad.run(["today", "--for", "kim"]).output
        #expect(text.contains("1200 / 1500 ml  80 %  300 ml to go  4 drinks"), "\(text)")
        #expect(text.contains("  08:15  +200 ml milk (counts 300)  by dad\n"), "\(text)")
        #expect(text.contains("  15:00  +250 ml water  by mum\n"), "\(text)")
        let dads = try dad.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(dads.day?.amountMl == 800 && dads.day?.percent == 40 && dads.entries.allSatisfy { $0.madeBy.isEmpty })

        // Habits too.
        #expect(try dad.run(["habit", "add", "brush", "--for", "kim"]).status == 0)
        #expect(try dad.run(["habit", "check", "brush", "--for", "kim"]).status == 0)
        let habits = try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls", "--for", "kim"])
        #expect(habits.habits.map { $0.habit?.name } == ["brush"])
        #expect(habits.habits.first?.checked == [false, false, false, true, false, false, false])
        #expect(try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits.isEmpty)

        // A child is on the board like anyone.
        let board = try ann.json(WaterV1.GetBoardResponse.self, ["board"]).board
        #expect(board?.rows.map(\.username) == ["kim", "dad", "mum", "ann"])
        #expect(board?.rows.map(\.totalMl) == [1200, 800, 375, 0])

        // Exports say who made each entry.
        let csv = try mum.run(["export", "--format", "csv", "--household"]).output
        #expect(csv.contains(",200,,,,,milk,1.50,dad\n") && csv.contains(",250,,,,,water,1.00,mum\n"), "\(csv)")
        #expect(csv.contains(",250,,,,,milk,1.50,\n"), "\(csv)")
        let exported = try JSONDecoder().decode(
            [WaterV1.MemberHistory].self, from: Data(try mum.run(["export", "--household"]).output.utf8))
        let kimsExport = exported.first { $0.member?.username == "kim" }
        #expect(kimsExport?.entries.map(\.madeBy).sorted() == ["dad", "dad", "dad", "mum"])
        #expect(kimsExport?.member?.child == true && kimsExport?.member?.guardians == ["dad"])

        let members = try mum.run(["member", "ls"]).output
        #expect(
            members.contains("kim      kim  (child; guardians: dad)\n") && members.contains("mum  (admin)"),
            "\(members)")

        // Admins made and unmade; never the last one.
        let last = try mum.run(["member", "admin", "mum", "off"])
        #expect(last.status == 1 && last.error.contains("last admin"), "\(last.error)")
        #expect(try mum.run(["member", "admin", "dad", "on"]).status == 0)
        #expect(try mum.run(["member", "admin", "mum", "off"]).status == 0)
        #expect(try dad.run(["whoami"]).output.contains("dad (dad), admin,"))
        #expect(try mum.run(["member", "admin", "dad", "off"]).status == 77)
        let lastAgain = try dad.run(["member", "admin", "dad", "off"])
        #expect(lastAgain.status == 1 && lastAgain.error.contains("last admin"), "\(lastAgain.error)")
        // No longer kim's guardian, dad acts for her as an admin; mum, no longer an admin, cannot.
        #expect(
            try dad.run(["member", "guardian", "kim", "rm", "dad"]).output
                == "guardians of kim: none (admins still act for them)\n")
        #expect(try mum.run(["today", "--for", "kim"]).status == 77)
        #expect(try dad.run(["today", "--for", "kim"]).status == 0)

        // water-server status counts them (its file is written every few seconds).
        #expect(waitUntil { server.statusFile["children"] == "1" && server.statusFile["admins"] == "1" })
        let status = try run("water-server", ["status", "--data", server.dataDirectory]).output
        #expect(status.contains("members: 4 (1 admin, 1 child)\n"), "\(status)")

        // Made durable: after a restart, and in kim's own view once an admin gives a password.
        server = try server.restarted(["--clock", "\(thursday)"])
        let (dadAgain, kimAgain) = (server.cli("dad"), server.cli("kim"))
        #expect(try dadAgain.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(
            try dadAgain.run(["member", "reset", "kim", "--password-stdin"], input: "kim-password-1\n").status == 0)
        #expect(try kimAgain.run(["login", "kim", "--password-stdin"], input: "kim-password-1\n").status == 0)
        let own = try kimAgain.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(own.day?.amountMl == 1200 && own.entries.map(\.madeBy) == ["mum", "dad", "dad", "dad"])
        #expect(try kimAgain.run(["today"]).output.contains("  08:15  +200 ml milk (counts 300)  by dad\n"))
        #expect(try kimAgain.run(["whoami"]).output.contains("kim (kim), child member,"))
        #expect(server.stop() == 0)
    }

    @Test("every for_member call: a stranger is refused, a guardian and an admin act; old requests act for the caller")
    func everyCallForAChild() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        for name in ["ann", "bob"] {
            _ = try mum.call(WaterV1.AddMemberRequest(username: name, password: "\(name)-password-1"))
        }
        _ = try mum.call(WaterV1.AddMemberRequest(username: "kim", child: true))
        _ = try mum.call(WaterV1.SetGuardianRequest(username: "kim", guardian: "ann"))
        // A child with a password given is refused; so is an admin child.
        #expect(throws: WaterError.self) {
            try mum.call(WaterV1.AddMemberRequest(username: "lea", password: "lea-password-1", child: true))
        }
        #expect(throws: WaterError.self) {
            try mum.call(WaterV1.AddMemberRequest(username: "lea", role: .admin, child: true))
        }
        let ann = try server.client("ann", password: "ann-password-1")
        let bob = try server.client("bob", password: "bob-password-1")
        do {
            _ = try server.client("kim", password: "")
            Issue.record("a child logged in")
        } catch {
            #expect((error as? WaterError)?.code == .unauthenticated)
        }

        let habitID = ann.newID().description
        let entryID = ann.newID().description
        let calls: [(String, @Sendable (WaterClient, String) throws -> Any)] = [
            ("LogWater", { try $0.call(WaterV1.LogWaterRequest(entryID: entryID, amountMl: 200, forMember: $1)) }),
            ("EditWater", { try $0.call(WaterV1.EditWaterRequest(entryID: entryID, amountMl: 300, forMember: $1)) }),
            ("GetToday", { try $0.call(WaterV1.GetTodayRequest(forMember: $1)) }),
            ("GetHistory", { try $0.call(WaterV1.GetHistoryRequest(days: 2, includeEntries: true, forMember: $1)) }),
            ("SetGoal", { try $0.call(WaterV1.SetGoalRequest(dailyGoalMl: 1500, forMember: $1)) }),
            ("SetUsualCup", { try $0.call(WaterV1.SetUsualCupRequest(usualCupMl: 200, forMember: $1)) }),
            ("GetSettings", { try $0.call(WaterV1.GetSettingsRequest(forMember: $1)) }),
            ("SetPrivacy", { try $0.call(WaterV1.SetPrivacyRequest(privacy: .percent, forMember: $1)) }),
            (
                "AddCup",
                { try $0.call(WaterV1.AddCupRequest(cup: WaterV1.Cup(name: "mug", amountMl: 300), forMember: $1)) }
            ),
            ("RemoveCup", { try $0.call(WaterV1.RemoveCupRequest(name: "mug", forMember: $1)) }),
            ("AddHabit", { try $0.call(WaterV1.AddHabitRequest(habitID: habitID, name: "read", forMember: $1)) }),
            ("CheckHabit", { try $0.call(WaterV1.CheckHabitRequest(habitID: habitID, forMember: $1)) }),
            ("UncheckHabit", { try $0.call(WaterV1.UncheckHabitRequest(habitID: habitID, forMember: $1)) }),
            ("ListHabitWeek", { try $0.call(WaterV1.ListHabitWeekRequest(forMember: $1)) }),
            ("DeleteHabit", { try $0.call(WaterV1.DeleteHabitRequest(habitID: habitID, forMember: $1)) }),
            ("DeleteWater", { try $0.call(WaterV1.DeleteWaterRequest(entryID: entryID, forMember: $1)) }),
            ("UndoWater", { try $0.call(WaterV1.UndoWaterRequest(forMember: $1)) }),
        ]
        for (name, call) in calls {
            // bob is no one's guardian: refused, for kim and for ann.
            for member in ["kim", "ann"] {
                do {
                    _ = try call(bob, member)
                    Issue.record("bob's \(name) for \(member) was taken")
                } catch {
                    #expect((error as? WaterError)?.code == .permissionDenied, "\(name) for \(member): \(error)")
                }
            }
        }
        // ann, kim's guardian, makes and takes back a drink and a habit of kim's, in that order.
        for (name, call) in calls where name != "UndoWater" {
            do {
                _ = try call(ann, "kim")
            } catch {
                Issue.record("ann's \(name) for kim: \(error)")
            }
        }
        // An admin acts for anyone: mum logs for kim; the drink says so.
        let logged = try mum.call(
            WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 150, forMember: "kim"))
        #expect(logged.entry?.madeBy == "mum")
        let undone = try ann.call(WaterV1.UndoWaterRequest(forMember: "kim"))
        #expect(undone.entry?.amountMl == 150 && undone.entry?.madeBy == "mum")
        // A request without for_member (what every older client sends) acts for the caller.
        let own = try ann.call(WaterV1.LogWaterRequest(entryID: ann.newID().description, amountMl: 100))
        #expect(own.entry?.madeBy == "" && own.day?.amountMl == 100)
        #expect(try ann.call(WaterV1.GetTodayRequest(forMember: "ann")).day?.amountMl == 100)
        #expect(try bob.call(WaterV1.GetTodayRequest()).day?.amountMl == 0)
        #expect(server.stop() == 0)
    }

    @Test(
        "away from the server, log --for kim waits with its member, counts nowhere in your figures, and is sent for kim"
    )
    func offlineForAChild() throws {
        var server = try ServerProcess.fresh()
        let mumSetup = try server.client("mum", password: adminPassword)
        _ = try mumSetup.call(WaterV1.AddMemberRequest(username: "kim", child: true))
        let mum = try OfflineTests.member(server)
        // Heard once, so the household's drinks are known here.
        #expect(try mum.run(["today"]).status == 0)
        let port = server.address.port
        #expect(server.stop() == 0)

        let unknown = try mum.run(["log", "200", "cola", "--for", "kim"])
        #expect(unknown.status == 65 && unknown.error.contains("no drink called cola"), "\(unknown.error)")
        let saved = try mum.run(["log", "200", "milk", "--for", "kim"])
        #expect(
            saved.status == 0 && saved.output.hasPrefix("saved on this computer: log 200 ml milk for kim "),
            "\(saved.output)")
        let private_ = try mum.run(["privacy", "percent", "--for", "kim"])
        #expect(
            private_.status == 0 && private_.output.hasPrefix("saved on this computer: set kim's privacy to percent"),
            "\(private_.output) \(private_.error)")
        #expect(OfflineTests.queuedFiles(mum).count == 2)
        let away = try mum.run(["--json", "today"])
        #expect(away.status == 0 && !away.output.contains("\"amount_ml\":200"), "\(away.output)")
        #expect(try mum.run(["today", "--for", "kim"]).status == 69)

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let sent = try mum.run(["sync"])
        #expect(sent.status == 0, "\(sent.error)")
        let kims = try mum.json(WaterV1.GetTodayResponse.self, ["today", "--for", "kim"])
        #expect(kims.entries.map(\.countedMl) == [300] && kims.entries.map(\.madeBy) == ["mum"])
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 0)
        // The queued privacy was kim's, not mum's.
        #expect(try mum.run(["privacy", "--for", "kim"]).output.hasPrefix("kim's privacy percent: "))
        #expect(try mum.run(["privacy"]).output.hasPrefix("privacy full: "))
        #expect(server.stop() == 0)
    }

    @Test(
        "a guardian sets a child's privacy with --for: the board follows it; a member who is not their guardian may not"
    )
    func childsPrivacy() throws {
        let server = try ServerProcess.fresh()
        let mumSetup = try server.client("mum", password: adminPassword)
        for name in ["dad", "ann"] {
            _ = try mumSetup.call(WaterV1.AddMemberRequest(username: name, password: "\(name)-password-1"))
        }
        _ = try mumSetup.call(WaterV1.AddMemberRequest(username: "kim", child: true))
        _ = try mumSetup.call(WaterV1.SetGuardianRequest(username: "kim", guardian: "dad"))
        let (dad, ann) = (server.cli("dad"), server.cli("ann"))
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try ann.run(["login", "ann", "--password-stdin"], input: "ann-password-1\n").status == 0)
        #expect(try dad.run(["log", "600", "--for", "kim"]).status == 0)

        let set = try dad.run(["privacy", "percent", "--for", "kim"])
        #expect(
            set.status == 0
                && set.output
                    == "kim's privacy percent: others see their rank, percent, days met and streak, not their millilitres; "
                    + "admins and guardians still see every drink with --for\n",
            "\(set.output) \(set.error)")
        let refused = try ann.run(["privacy", "hidden", "--for", "kim"])
        #expect(refused.status == 77, "\(refused.output) \(refused.error)")
        #expect(try ann.run(["privacy", "--for", "kim"]).status == 77)
        // ann's board: kim's percent, no millilitres; dad's own privacy is untouched.
        let board = try server.client("ann", password: "ann-password-1").call(WaterV1.GetBoardRequest())
        let kim = try #require(board.board?.rows.first { $0.username == "kim" }, "\(board)")
        #expect(kim.amountsHidden && kim.totalMl == 0 && kim.averagePercent == 30, "\(kim)")
        #expect(try dad.run(["privacy"]).output.hasPrefix("privacy full: "))
        #expect(server.stop() == 0)
    }
}
