import Foundation
import Testing
import WaterClient
import WaterProtocol
import WaterTestSupport

/// The admin commands as a family's admin reads them (issue 22): an archive is named by whose
/// it is, not only `users/2`, and a repair says what each record it dropped was.
@Suite("Server admin polish, end to end", .serialized)
struct ServerPolishTests {
    /// Today in UTC (the test servers' zone), `YYYY-MM-DD`.
    static func todayUTC() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    @Test("check names the member whose archive is damaged, and whose each healthy one is")
    func checkNamesMembers() throws {
        let server = try DamagedArchiveTests.household(drinks: 20, inLog: true)
        try LogFiles.damageChunk(of: "users/2", in: server.dataDirectory, 5)
        let check = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(check.status == 1)
        #expect(check.output.contains("DAMAGED   \(server.dataDirectory)/users/2 (dad's archive): "), "\(check.output)")
        #expect(check.output.contains("ok        \(server.dataDirectory)/users/1 (mum's archive, "), "\(check.output)")
        #expect(check.output.contains("ok        \(server.dataDirectory)/accounts ("), "\(check.output)")

        let json = try run("water-server", ["check", "--data", server.dataDirectory, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let archives = try #require(object["archives"] as? [[String: Any]])
        let dad = try #require(archives.first { $0["archive"] as? String == "users/2" })
        #expect(dad["member"] as? String == "dad" && dad["problem"] is String)
        #expect(archives.first { $0["archive"] as? String == "accounts" }?["member"] == nil)
    }

    @Test("repair names the member and says what each dropped record was: the drink and its day")
    func repairSaysWhatItDropped() throws {
        let dayBefore = Self.todayUTC()
        let server = try DamagedArchiveTests.household(drinks: 30, inLog: true)
        let dayAfter = Self.todayUTC()
        let damaged = try LogFiles.damageChunk(of: "users/2", in: server.dataDirectory, 10)
        let repair = try run("water-server", ["repair", "dad", "--data", server.dataDirectory])
        #expect(repair.status == 0, "\(repair.error)")
        #expect(
            repair.output.contains("repaired \(server.dataDirectory)/users/2 (dad's archive); the damaged files"),
            "\(repair.output)")
        // Each of dad's drinks was 10 ml, logged now (a time of day, then the day).
        let line = try #require(
            repair.output.split(separator: "\n").first { $0.contains("record \(damaged.sequence), damaged") },
            "\(repair.output)")
        #expect(line.contains("which reads as a drink of 10 ml at "), "\(repair.output)")
        #expect(line.hasSuffix(" on \(dayBefore)") || line.hasSuffix(" on \(dayAfter)"), "\(line)")

        let json = try run("water-server", ["repair", "--all", "--data", server.dataDirectory, "--json"])
        #expect(json.status == 0 && json.output.contains("\"archives\":[]"), "\(json.output)")
    }

    @Test("status names the member a running server protects, and whose each archive's size is")
    func statusNamesMembers() throws {
        var server = try DamagedArchiveTests.household(drinks: 5)
        try LogFiles.damageSnapshot(of: "users/2", in: server.dataDirectory)
        server = try server.restarted()
        // A member's archive is loaded, and so found damaged, when first used; the server
        // rewrites its status file every 5 s.
        let dad = try server.client("dad", password: DamagedArchiveTests.dadPassword)
        expectCode(.failedPrecondition) { try dad.call(WaterV1.GetTodayRequest()) }
        #expect(
            waitUntil(every: .milliseconds(200)) {
                (try? run("water-server", ["status", "--data", server.dataDirectory]))?.output.contains(
                    "protected: \(server.dataDirectory)/users/2 (dad)") == true
            })
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(status.output.contains("  users/2 (dad) "), "\(status.output)")
        #expect(status.output.contains("  users/1 (mum) "), "\(status.output)")
        let json = try run("water-server", ["status", "--data", server.dataDirectory, "--json"])
        #expect(json.output.contains("\"member\":\"dad\""), "\(json.output)")
        #expect(server.stop() == 0)
    }
}
