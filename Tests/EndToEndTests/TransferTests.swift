import Foundation
import Testing
import WaterClient
import WaterProtocol

@Suite("Export and import, end to end", .serialized)
struct TransferTests {
    @Test("a member's history goes out as JSON and CSV and back in; importing twice changes nothing")
    func roundTrip() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for (n, at) in ["2026-11-23T08:00Z", "2026-11-24T09:30Z", "2026-11-26T07:15Z"].enumerated() {
            #expect(try mum.run(["log", "\(200 + 100 * n)", "--at", at]).status == 0)
        }
        #expect(try mum.run(["goal", "2500"]).status == 0)
        #expect(try mum.run(["habit", "add", "read, a chapter", "--icon", "book", "--color", "green"]).status == 0)
        #expect(try mum.run(["habit", "check", "read, a chapter", "--day", "2026-11-24"]).status == 0)
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        for format in ["json", "csv"] {
            #expect(try mum.run(["export", "--format", format, "--output", "\(folder)/mum.\(format)"]).status == 0)
        }
        let csv = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8)
        #expect(
            csv.hasPrefix("kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color,drink,factor,made_by\n"))
        #expect(csv.contains("\"read, a chapter\",book,green"))

        // Each format into a member of its own (mum's export, so --yes): the same history comes
        // back, and a second import adds nothing.
        for (name, format) in [("jay", "json"), ("cas", "csv")] {
            let person = try server.addedMember(name, by: mum)
            let first = try person.json(WaterV1.ImportResponse.self, ["import", "--yes", "\(folder)/mum.\(format)"])
            #expect(
                [first.entriesAdded, first.goalsAdded, first.habitsAdded, first.checkinsAdded] == [3, 1, 1, 1],
                "\(format)")
            let second = try person.json(WaterV1.ImportResponse.self, ["import", "--yes", "\(folder)/mum.\(format)"])
            #expect(
                [second.entriesAdded, second.goalsAdded, second.habitsAdded, second.checkinsAdded] == [0, 0, 0, 0])
            let theirs = try person.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "4"]).days
            let mums = try mum.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "4"]).days
            #expect(theirs.map(\.amountMl) == mums.map(\.amountMl))
            let habits = try person.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits
            #expect(habits.first?.checked == [false, true, false, false, false, false, false])
        }

        // Admins export the whole household; members only themselves.
        let household = try mum.run(["export", "--household"])
        let members = try JSONDecoder().decode([WaterV1.MemberHistory].self, from: Data(household.output.utf8))
        #expect(members.compactMap { $0.member?.username }.sorted() == ["cas", "jay", "mum"])
        #expect(try server.cli("jay").run(["export", "--household"]).status == 77)
        #expect(server.stop() == 0)
    }

    @Test(
        "import takes CRLF files, keeps the habits' order and the usual cup, and refuses what the live commands refuse")
    func importIsCheckedLikeTheLiveCalls() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "300", "--at", "2026-11-24T09:30Z"]).status == 0)
        #expect(try mum.run(["cup", "330"]).status == 0)
        for name in ["Read", "Run", "Stretch"] { #expect(try mum.run(["habit", "add", name]).status == 0) }
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        #expect(try mum.run(["export", "--format", "csv", "--output", "\(folder)/mum.csv"]).status == 0)
        // What a spreadsheet or Python's csv module writes: CRLF line ends.
        let crlf = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8).replacing("\n", with: "\r\n")
        try crlf.write(toFile: "\(folder)/crlf.csv", atomically: true, encoding: .utf8)
        #expect(try mum.run(["member", "add", "kim", "--password-stdin"], input: "kim-password-1\n").status == 0)
        let kim = server.cli("kim")
        #expect(try kim.run(["login", "kim", "--password-stdin"], input: "kim-password-1\n").status == 0)
        let imported = try kim.run(["import", "--yes", "\(folder)/crlf.csv"])
        #expect(imported.status == 0, "\(imported.error)")
        let names = { (person: CommandLineUser) in
            try person.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits.compactMap { $0.habit?.name }
        }
        #expect(try names(kim) == names(mum) && names(mum) == ["Stretch", "Run", "Read"])
        #expect(try kim.json(WaterV1.GetSettingsResponse.self, ["cup"]).settings?.usualCupMl == 330)

        // What habit add, habit check and log refuse, import refuses too, naming the field, and
        // adds nothing of that file.
        let base = try JSONDecoder().decode(
            [WaterV1.MemberHistory].self, from: Data(try mum.run(["export"]).output.utf8))[0]
        var unknownIcon = base
        unknownIcon.habits[0].habit?.icon = WaterV1.HabitIcon(rawValue: 42)
        var impossibleDay = base
        impossibleDay.habits[0].checkedDates = ["2026-02-30"]
        var futureDay = base
        futureDay.habits[0].checkedDates = ["2026-12-25"]
        var tooMuch = base
        tooMuch.entries[0].amountMl = 5000
        #expect(try mum.run(["member", "add", "lee", "--password-stdin"], input: "lee-password-1\n").status == 0)
        let lee = server.cli("lee")
        #expect(try lee.run(["login", "lee", "--password-stdin"], input: "lee-password-1\n").status == 0)
        for (history, field, message) in [
            (unknownIcon, "habits.habit.icon", "an icon must be one of alarm"),
            (impossibleDay, "habits.checked_dates", #"a day must be a date like 2026-11-30, got \"2026-02-30\""#),
            (futureDay, "habits.checked_dates", "2026-12-25 is in the future"),
            (tooMuch, "entries.amount_ml", "a drink must be between 1 and 2000 ml, got 5000"),
        ] {
            let path = "\(folder)/bad-\(field).json"
            try Data(exportFile(history).utf8).write(to: URL(fileURLWithPath: path))
            let refused = try lee.run(["--json", "import", "--yes", path])
            #expect(refused.status == 65, "\(field): \(refused.error)")
            #expect(
                refused.error.contains("\"field\":\"\(field)\"") && refused.error.contains(message), "\(refused.error)")
        }
        let untouched = try lee.json(WaterV1.GetHistoryResponse.self, ["history", "--entries"])
        #expect(untouched.entries.isEmpty)
        #expect(try lee.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"]).habits.isEmpty)
        #expect(server.stop() == 0)
    }
}

/// An export file as water-client writes it.
private func exportFile(_ history: WaterV1.MemberHistory) -> String {
    let encoder = JSONEncoder()
    return String(decoding: (try? encoder.encode([history])) ?? Data(), as: UTF8.self)
}
