import Foundation
import Testing
import WaterProtocol

/// What water-client makes of what a person types, through the real binaries (issues 22 and 31):
/// amounts, weeks, a list's numbers and time zones.
@Suite("What water-client makes of what is typed, end to end", .serialized)
struct TypedArgumentsTests {
    @Test("edit --amount 0 says the range, and nothing of the usual cup (which edit has no use for)")
    func editAmountZero() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        let id = try #require(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.first?.entryID)
        let edited = try mum.run(["edit", id, "--amount", "0"])
        #expect(edited.status == 65)
        #expect(edited.error == "water-client: a drink must be between 1 and 2000 ml, got 0\n", "\(edited.error)")
    }

    @Test("issue 31: log, edit --amount, goal and cup read an amount alike (0.5l, 33cl, 250ml)")
    func oneAmountGrammar() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "0.5l"]).status == 0)
        let id = try #require(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.first?.entryID)
        #expect(try mum.run(["edit", id, "--amount", "33cl"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.map(\.amountMl) == [330])
        #expect(try mum.run(["goal", "2.5l"]).status == 0)
        #expect(try mum.run(["cup", "300ml"]).status == 0)
        let settings = try #require(try mum.json(WaterV1.GetSettingsResponse.self, ["cup"]).settings)
        #expect(settings.dailyGoalMl == 2500 && settings.usualCupMl == 300, "\(settings)")
        for command in [
            ["log", "0.3333l"], ["edit", id, "--amount", "0.3333l"], ["goal", "2,5,0l"], ["cup", "1.2.3"],
        ] {
            let refused = try mum.run(command)
            #expect(refused.status == 64, "\(command): \(refused)")
            #expect(refused.error.contains("an amount is whole millilitres (250, 250ml) or litres"), "\(refused.error)")
        }
    }

    @Test("issue 32 item 19: log, edit, goal and cup read bottles' German forms (0,33l, 1,5 l, 330ML, 33 cl)")
    func germanBottles() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        // "33 cl" typed without quotes is two words: the unit belongs to the amount before it.
        for words in [["0,33l"], ["1,5 l"], ["330ML"], ["33 cl"], ["33", "cl"], ["2", "dl", "tea"]] {
            let logged = try mum.run(["log"] + words)
            #expect(logged.status == 0, "\(words): \(logged)")
        }
        let entries = try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries
        #expect(entries.map(\.amountMl) == [200, 330, 330, 330, 1500, 330], "\(entries)")
        #expect(entries.first?.drink == "tea")
        let id = try #require(entries.first?.entryID)
        #expect(try mum.run(["edit", id, "--amount", "0,25 l"]).status == 0)
        #expect(try mum.run(["goal", "2,5 l"]).status == 0)
        #expect(try mum.run(["cup", "0,33l"]).status == 0)
        let settings = try #require(try mum.json(WaterV1.GetSettingsResponse.self, ["cup"]).settings)
        #expect(settings.dailyGoalMl == 2500 && settings.usualCupMl == 330, "\(settings)")
        // Thousands or a decimal? Neither is guessed.
        for amount in ["1.000", "1,000"] {
            let refused = try mum.run(["log", amount])
            #expect(refused.status == 64, "\(amount): \(refused)")
            #expect(refused.error.contains("1 ml or 1000 ml"), "\(refused.error)")
        }
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.count == 6)
    }

    @Test("board --week last and habit ls --week last are the week before the server's current one, in any zone")
    func lastWeekIsTheServers() throws {
        // The server's clock at Wednesday 2026-06-10 12:00 UTC (week 24): not this terminal's.
        let server = try ServerProcess.fresh(["--clock", "1781092800000"])
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        // A member 14 hours ahead of the household (UTC): still week 24 there at that moment.
        #expect(try mum.run(["zone", "Pacific/Kiritimati"]).status == 0)
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        let board = try mum.json(WaterV1.GetBoardResponse.self, ["board", "--week", "last"])
        #expect(board.board?.week == "2026-W23", "\(board)")
        #expect(try mum.json(WaterV1.GetBoardResponse.self, ["board"]).board?.week == "2026-W24")
        let habits = try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls", "--week", "last"])
        #expect(habits.week == "2026-W23", "\(habits)")
    }

    @Test("todo done N and rm N mean the item this terminal showed at N: after another's mv, or typed twice, refused")
    func todoNumbersAsShown() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        // Each with a state directory (and so a cache) of their own, as on two computers.
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let dad = try OfflineTests.member(server, "dad", password: "dad-password-1")
        for text in ["buy filters", "call grandma", "water plants", "fix the tap", "descale kettle"] {
            #expect(try mum.run(["todo", "add", text]).status == 0)
        }
        #expect(try mum.run(["todo", "ls"]).output.contains(" 1. [ ] buy filters"))
        #expect(try dad.run(["todo", "mv", "4", "1"]).output.contains(" 1. [ ] fix the tap"))
        // Mum's 1 is still "buy filters", as her terminal showed it: refused, with the list now.
        let refused = try mum.run(["todo", "done", "1"])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.error.contains("the list has changed since this terminal showed it"), "\(refused.error)")
        #expect(refused.error.contains(" 1. [ ] fix the tap"), "\(refused.error)")
        #expect(!(try mum.run(["todo", "ls"]).output.contains("[x]")))
        // Read again, the numbers are the new list's, and done is safe to repeat.
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: buy filters"))
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: buy filters"))
        // rm 4 typed twice removes one item, not two.
        #expect(try mum.run(["todo", "rm", "4"]).output.contains("removed: water plants"))
        let again = try mum.run(["todo", "rm", "4"])
        #expect(again.status == 65 && again.error.contains("4 is another item now"), "\(again)")
        let left = try mum.run(["todo", "ls"]).output
        #expect(left.contains("descale kettle") && left.split(separator: "\n").count == 4, "\(left)")
    }

    @Test("a mistyped time zone is answered with the nearest name: Tokio -> Asia/Tokyo, new york -> America/New_York")
    func nearestZone() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for (typed, near) in [
            ("Tokio", "Asia/Tokyo"), ("new york", "America/New_York"), ("Europe/Berln", "Europe/Berlin"),
        ] {
            let refused = try mum.run(["zone", typed])
            #expect(refused.status == 65, "\(refused)")
            #expect(refused.error.contains("did you mean \(near)?"), "\(typed): \(refused.error)")
        }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("zone-\(UUID())").path
        let made = try run(
            "water-server", ["init", "--data", data, "--admin", "mum", "--password-stdin", "--time-zone", "Tokio"],
            input: adminPassword + "\n")
        #expect(made.status == 64 && made.error.contains("(did you mean Asia/Tokyo?)"), "\(made)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }
}
