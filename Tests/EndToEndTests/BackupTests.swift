import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync
import WaterTestSupport

@Suite("Backups, end to end", .serialized)
struct BackupTests {
    @Test("a backup taken under write load holds every write acknowledged before it began, and restores")
    func backupUnderLoad() throws {
        // A fixed clock keeps every write on one day, whatever the time the test runs at.
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        // Two writers log as fast as they can; each acknowledged write goes on one list, in order.
        let acknowledged = Locked<[String]>([])
        let stop = Locked(false)
        let group = DispatchGroup()
        let address = server.address
        let now = UnixTime.nowMilliseconds()
        for (name, password) in [("mum", adminPassword), ("dad", "dad-password-1")] {
            group.writer(address, name, password) { client in
                var count = 0
                // An hour apart, back from now: within a member's caps (100 a day, 10 000 a
                // year, 100 000 in all: WaterLimits).
                while !stop.withLock({ $0 }), count < 100_000 {
                    let id = client.newID().description
                    let request = WaterV1.LogWaterRequest(
                        entryID: id, amountMl: 50, atUnixMs: now - Int64(count + 1) * 3_600_000)
                    if (try? client.call(request)) != nil {
                        acknowledged.withLock { $0.append("\(name) \(id)") }
                    }
                    count += 1
                }
            }
        }
        // The backup begins once 50 writes are acknowledged, and ends while the writers still
        // write: the load spans it, at whatever speed this machine writes.
        #expect(waitUntil { acknowledged.withLock { $0.count } >= 50 }, "the writers never got going")
        let before = acknowledged.withLock { $0 }
        let backupPath = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path + "/backup"
        let backup = try run("water-server", ["backup", "--data", server.dataDirectory, "--to", backupPath])
        let atEnd = acknowledged.withLock { $0.count }
        #expect(waitUntil { acknowledged.withLock { $0.count } > atEnd }, "the writers stopped before the backup ended")
        stop.withLock { $0 = true }
        group.wait()
        #expect(backup.status == 0, "\(backup.error)")
        #expect(server.stop() == 0)
        #expect(before.count >= 50, "writes were acknowledged before the backup began")

        // The server's key and certificate are in the copy: a restored server keeps its fingerprint.
        for file in ["tls/certificate.pem", "tls/key.pem"] {
            let original = try Data(contentsOf: URL(fileURLWithPath: "\(server.dataDirectory)/\(file)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(backupPath)/\(file)")) == original, "\(file)")
        }

        // `check` passes on the copy, and a restore of it serves every one of those writes.
        #expect(try run("water-server", ["check", "--data", backupPath]).status == 0)
        let restoredPath = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path + "/restored"
        let restore = try run("water-server", ["restore", "--from", backupPath, "--data", restoredPath])
        #expect(restore.status == 0, "\(restore.error)")
        let refused = try run("water-server", ["restore", "--from", backupPath, "--data", restoredPath])
        #expect(refused.status != 0 && refused.error.contains("--force"))
        let restored = try ServerProcess(dataDirectory: restoredPath, options: ["--clock", "\(thursday)"])
        var stored: Set<String> = []
        for (name, password) in [("mum", adminPassword), ("dad", "dad-password-1")] {
            let client = try restored.client(name, password: password)
            try client.stream(WaterV1.ExportRequest()) { response in
                for entry in response.history?.entries ?? [] { stored.insert("\(name) \(entry.entryID)") }
                return true
            }
        }
        let missing = before.filter { !stored.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) acknowledged writes missing from the backup")
        #expect(restored.stop() == 0)
        let forced = try run("water-server", ["restore", "--from", backupPath, "--data", restoredPath, "--force"])
        #expect(forced.status == 0 && forced.output.contains("is kept in"))
    }

    @Test(
        "a restore ends every session the backup holds, so one ended since is not revived; --keep-sessions keeps them"
    )
    func restoreEndsSessions() throws {
        let server = try ServerProcess.fresh()
        let stays = try server.client("mum", password: adminPassword)
        let endsLater = try server.client("mum", password: adminPassword)
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        #expect(
            try run("water-server", ["backup", "--data", server.dataDirectory, "--to", "\(folder)/backup"]).status == 0)
        _ = try endsLater.call(WaterV1.LogoutRequest())  // revoked after the backup was taken
        #expect(server.stop() == 0)
        func opens(_ token: [UInt8], on restored: ServerProcess) -> Bool {
            let client = try? WaterClient(
                configuration: ClientConfiguration(server: restored.address, security: .plaintext), token: token)
            return (try? client?.call(WaterV1.WhoAmIRequest())) != nil
        }

        let restore = try run(
            "water-server", ["restore", "--from", "\(folder)/backup", "--data", "\(folder)/restored", "--json"])
        #expect(restore.status == 0, "\(restore.error)")
        #expect(restore.output.contains("\"sessions_ended\":2"), "\(restore.output)")
        let restored = try ServerProcess(dataDirectory: "\(folder)/restored")
        #expect(!opens(stays.token, on: restored) && !opens(endsLater.token, on: restored))
        #expect(try restored.client("mum", password: adminPassword).call(WaterV1.WhoAmIRequest()).member != nil)
        #expect(restored.stop() == 0)

        // Kept on request: the backup's sessions as they were, the one ended since among them.
        let kept = try run(
            "water-server", ["restore", "--from", "\(folder)/backup", "--data", "\(folder)/kept", "--keep-sessions"])
        #expect(kept.status == 0 && kept.output.contains("--keep-sessions"), "\(kept.error)")
        let keptServer = try ServerProcess(dataDirectory: "\(folder)/kept")
        #expect(opens(stays.token, on: keptServer) && opens(endsLater.token, on: keptServer))
        #expect(keptServer.stop() == 0)
        let member = try run(
            "water-server",
            ["restore", "--from", "\(folder)/backup", "--data", "\(folder)/kept", "--member", "mum", "--keep-sessions"])
        #expect(member.status == 64)

        // A backup whose accounts do not read cannot have its sessions ended: refused, nothing
        // changed, unless the admin asks for it as it is.
        try LogFiles.damageSnapshot(of: "accounts", in: "\(folder)/backup")
        let damaged = try run(
            "water-server", ["restore", "--from", "\(folder)/backup", "--data", "\(folder)/from-damaged"])
        #expect(damaged.status == 1 && damaged.error.contains("--keep-sessions"), "\(damaged.error)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/from-damaged"))
        let asItIs = try run(
            "water-server",
            ["restore", "--from", "\(folder)/backup", "--data", "\(folder)/from-damaged", "--keep-sessions"])
        #expect(asItIs.status == 0, "\(asItIs.error)")
    }
}
