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

    @Test("member rm keeps the member's data and member restore brings it back, across a restart too")
    func removeAndRestore() throws {
        var server = try DamagedArchiveTests.household(drinks: 3)
        server = try server.restarted()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let removed = try mum.run(["member", "rm", "dad", "--yes"])
        #expect(removed.status == 0 && removed.output.contains("member restore dad brings them back"), "\(removed)")
        #expect(!removed.error.contains("removing yourself"), "\(removed.error)")
        let dad = server.cli("dad")
        let refused = try dad.run(["login", "dad", "--password-stdin"], input: DamagedArchiveTests.dadPassword + "\n")
        #expect(refused.status != 0)

        let restored = try mum.run(["member", "restore", "dad"])
        #expect(restored.status == 0 && restored.output.contains("restored dad"), "\(restored.error)")
        #expect(
            try dad.run(["login", "dad", "--password-stdin"], input: DamagedArchiveTests.dadPassword + "\n").status
                == 0)
        let today = try dad.run(["today", "--json"])
        #expect(today.output.contains("\"count\":3"), "dad's three drinks are back: \(today.output)")

        // Removed again, then the server stops (its snapshot of the accounts keeps who was
        // removed) and starts: the restore still finds him.
        #expect(try mum.run(["member", "rm", "dad", "--yes"]).status == 0)
        server = try server.restarted()
        // On its new port: each logs in again there.
        let (mumAgain, dadAgain) = (server.cli("mum"), server.cli("dad"))
        #expect(try mumAgain.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let again = try mumAgain.run(["member", "restore", "dad"])
        #expect(again.status == 0, "\(again.error)")
        #expect(
            try dadAgain.run(["login", "dad", "--password-stdin"], input: DamagedArchiveTests.dadPassword + "\n")
                .status == 0)
        #expect(try dadAgain.run(["today", "--json"]).output.contains("\"count\":3"))

        let nobody = try mumAgain.run(["member", "restore", "nobody"])
        #expect(nobody.status == 65 && nobody.error.contains("no removed member is called nobody"), "\(nobody.error)")
        let current = try mumAgain.run(["member", "restore", "dad"])
        #expect(current.status == 65 && current.error.contains("dad is a member of the household"), "\(current.error)")
        #expect(server.stop() == 0)
    }

    @Test("an admin removing themselves is warned that it ends their own session, and another admin restores them")
    func removingYourself() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "gran", password: "gran-password-1", role: .admin))
        let gran = server.cli("gran")
        #expect(try gran.run(["login", "gran", "--password-stdin"], input: "gran-password-1\n").status == 0)
        let removed = try gran.run(["member", "rm", "gran", "--yes"])
        #expect(removed.status == 0, "\(removed.error)")
        #expect(
            removed.error.contains("warning: you are removing yourself: this ends your session here"),
            "\(removed.error)")
        #expect(try gran.run(["whoami"]).status != 0, "gran's own session ended")
        _ = try mum.call(WaterV1.RestoreMemberRequest(username: "gran"))
        #expect(try gran.run(["login", "gran", "--password-stdin"], input: "gran-password-1\n").status == 0)
        #expect(try gran.run(["whoami"]).output.contains("admin"))
        #expect(server.stop() == 0)
    }
}
