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
        #expect(csv.hasPrefix("kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color\n"))
        #expect(csv.contains("\"read, a chapter\",book,green"))

        // Each format into a member of its own: the same history comes back, and a second
        // import adds nothing.
        for (name, format) in [("jay", "json"), ("cas", "csv")] {
            #expect(
                try mum.run(["member", "add", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
            let person = server.cli(name)
            #expect(try person.run(["login", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
            let first = try person.json(WaterV1.ImportResponse.self, ["import", "\(folder)/mum.\(format)"])
            #expect(
                [first.entriesAdded, first.goalsAdded, first.habitsAdded, first.checkinsAdded] == [3, 1, 1, 1],
                "\(format)")
            let second = try person.json(WaterV1.ImportResponse.self, ["import", "\(folder)/mum.\(format)"])
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
}
