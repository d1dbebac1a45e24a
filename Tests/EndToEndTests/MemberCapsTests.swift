import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol

/// The caps on a member's archive, against the real server: a write over one is refused with
/// the cap named, an import over one adds nothing and costs the server no memory of its size.
@Suite("Member caps, end to end", .serialized)
struct MemberCapsTests {
    static let hour: Int64 = 3_600_000
    static let minute: Int64 = 60_000

    /// `count` drinks of 2026 before Thursday 2026-11-26, `perDay` a day, a minute apart from
    /// `first` past midnight, each with an id of its own.
    static func drinks(_ count: Int, perDay: Int, first: Int64 = 0) -> [WaterV1.WaterEntry] {
        let midnight = Int64(LocalDate("2026-11-25")!.daysSinceEpoch) * 86_400_000
        return (0..<count).map { n in
            WaterV1.WaterEntry(
                entryID: UUID().uuidString.lowercased(), amountMl: 100,
                atUnixMs: midnight - Int64(n / perDay) * 86_400_000 + 6 * hour + first + Int64(n % perDay) * minute)
        }
    }

    /// An export file of `entries`, as water-client writes one.
    static func exportFile(_ entries: [WaterV1.WaterEntry], at path: String) throws {
        let data = try JSONEncoder().encode([WaterV1.MemberHistory(entries: entries)])
        try data.write(to: URL(fileURLWithPath: path))
    }

    static func storedDrinks(_ client: WaterClient) throws -> Int {
        var count = 0
        try client.stream(WaterV1.ExportRequest()) { response in
            count += response.history?.entries.count ?? 0
            return true
        }
        return count
    }

    @Test("the 101st drink of a day is refused with the cap named, from the library and at the command line")
    func dayCap() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = try server.client("mum", password: adminPassword)
        let morning = thursday - 12 * Self.hour  // 06:00 on Thursday
        for n in 0..<100 {
            _ = try mum.call(
                WaterV1.LogWaterRequest(
                    entryID: mum.newID().description, amountMl: 100, atUnixMs: morning + Int64(n) * Self.minute))
        }
        let refused = #expect(throws: WaterError.self) {
            try mum.call(
                WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 100, atUnixMs: morning + Self.hour))
        }
        #expect(refused?.code == .failedPrecondition)
        #expect(refused?.message == "at most 100 drinks a day: 2026-11-26 has 100 already; remove one first")
        #expect(refused?.violations.map(\.field) == ["at_unix_ms"])

        let cli = server.cli("mum")
        #expect(try cli.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let typed = try cli.run(["log", "250"])
        #expect(typed.status == 1 && typed.error.contains("at most 100 drinks a day"), "\(typed.error)")
        // Yesterday has room; today still holds its 100.
        #expect(try cli.run(["log", "250", "--at", "2026-11-25T09:00Z"]).status == 0)
        #expect(try mum.call(WaterV1.GetTodayRequest()).entries.count == 100)
        #expect(server.stop() == 0)
    }

    @Test("an Import over a cap is refused whole: nothing added, and the server's memory not grown by its size")
    func importRefused() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        let before = try ProcessMemory(pid: server.pid)
        // 40 imports of 14 000 drinks of 2026 each (100 a day; a request near the 1 MiB frame
        // limit). Taken, they would hold 560 000 drinks: at least 64 bytes each once loaded, 34
        // MiB, and about 340 each right after an import (README.md, "Limits"), 180 MiB. Each is
        // over the year's cap, so none is taken, and all the server keeps of them is what
        // decoding one request left to malloc (measured: 8 to 16 MiB, the same after 20 as after
        // 40).
        for _ in 0..<40 {
            let history = WaterV1.MemberHistory(entries: Self.drinks(14_000, perDay: 100))
            let refused = #expect(throws: WaterError.self) { try mum.call(WaterV1.ImportRequest(history: history)) }
            #expect(refused?.code == .failedPrecondition)
            #expect(
                refused?.message
                    == "at most 10000 drinks a calendar year: 2026 would have 14001 (1 there and 14000 new); "
                    + "nothing of this import was added")
            #expect(refused?.violations.map(\.field) == ["entries.at_unix_ms"])
        }
        let after = try ProcessMemory(pid: server.pid)
        #expect(try Self.storedDrinks(mum) == 1)
        #expect(
            after.anonymousKiB - before.anonymousKiB < 32 * 1024, "the server grew from \(before) to \(after)")
        #expect(server.stop() == 0)
    }

    @Test(
        "water-client import refuses a file over a cap before sending any of it, and names what went in when the archive's drinks take it over"
    )
    func commandLineImport() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path

        // 101 drinks on one day: refused by the client, nothing sent.
        try Self.exportFile(Self.drinks(101, perDay: 101), at: "\(folder)/day.json")
        let day = try mum.run(["import", "\(folder)/day.json"])
        #expect(day.status == 1, "\(day.error)")
        #expect(
            day.error.contains("day.json: at most 100 drinks a day: 2026-11-25 would have 101; nothing was imported"),
            "\(day.error)")

        // 6 000 drinks of 2026 go in; a file of 5 000 more fits alone, but with them the year's
        // cap is reached in its second piece: the first is kept, and the message says so.
        try Self.exportFile(Self.drinks(6_000, perDay: 30), at: "\(folder)/first.json")
        let first = try mum.json(WaterV1.ImportResponse.self, ["import", "\(folder)/first.json"])
        #expect(first.entriesAdded == 6_000)
        try Self.exportFile(Self.drinks(5_000, perDay: 20, first: 8 * Self.hour), at: "\(folder)/second.json")
        let second = try mum.run(["import", "\(folder)/second.json"])
        #expect(second.status == 1, "\(second.error)")
        #expect(
            second.error.contains(
                "at most 10000 drinks a calendar year: 2026 would have 11000 (10000 there and 1000 new); nothing of "
                    + "this import was added; the file's first 4000 entries went in before it (4000 of them new): "
                    + "importing the file again adds only what is missing"), "\(second.error)")
        #expect(try Self.storedDrinks(try server.client("mum", password: adminPassword)) == 10_000)
        #expect(server.stop() == 0)
    }
}
