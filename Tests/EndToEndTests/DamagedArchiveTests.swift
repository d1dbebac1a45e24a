import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol

/// Damaged archives through the real binaries (issue 13): check reads only, repair keeps what
/// verifies, backup copies a damaged archive as it is, restore puts one member back, and a
/// damaged accounts archive says so instead of "wrong password".
@Suite("Damaged archives, end to end", .serialized)
struct DamagedArchiveTests {
    static let dadPassword = "dad-password-1"

    /// Every regular file under `directory` and its bytes, to compare a tree before and after.
    static func tree(_ directory: String, excluding excluded: Set<String> = []) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let path = enumerator?.nextObject() as? String {
            let full = "\(directory)/\(path)"
            var isDirectory: ObjCBool = false
            guard !excluded.contains(path), FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: full))
        }
        return files
    }

    /// A household of mum and dad; dad has logged `drinks` drinks. The server is stopped, or
    /// killed with SIGKILL when `inLog` (so that their records are still in the log, not folded
    /// into snapshots as a clean stop does).
    static func household(drinks: Int, inLog: Bool = false) throws -> ServerProcess {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: dadPassword))
        let dad = try server.client("dad", password: dadPassword)
        // 90 a day at most, today and back (a day holds 100 drinks, WaterLimits.maximumEntriesPerDay).
        let now = UnixTime.nowMilliseconds()
        for n in 0..<drinks {
            let at = n < 90 ? 0 : now - Int64(n / 90) * 86_400_000
            _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 10, atUnixMs: at))
        }
        if inLog {
            // A frame after dad's last, so that none of his is the log's last (a torn write).
            _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 10))
            #expect(server.killAbruptly() == 128 + SIGKILL)
        } else {
            #expect(server.stop() == 0)
        }
        return server
    }

    /// Every drink of the client's member, on any day.
    static func drinkCount(_ client: WaterClient) throws -> Int {
        var count = 0
        try client.stream(WaterV1.ExportRequest()) { response in
            count += response.history?.entries.count ?? 0
            return true
        }
        return count
    }

    static func flipByte(_ path: String, at offset: Int) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[offset] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("check changes no byte of a damaged, stopped directory, and reads a running server's beside it")
    func checkOnlyReads() throws {
        var server = try Self.household(drinks: 20, inLog: true)
        try LogFiles.damageChunk(of: "users/2", in: server.dataDirectory, 5)
        let before = try Self.tree(server.dataDirectory)
        let stopped = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(
            stopped.status == 1 && stopped.output.contains("DAMAGED") && stopped.output.contains("are damaged"),
            "\(stopped.output)")
        #expect(try Self.tree(server.dataDirectory) == before, "check changed the data it checked")

        server = try server.killedAndRestarted()
        let serving = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(serving.status == 1 && serving.output.contains("in use by pid"), "\(serving.output)\(serving.error)")
        #expect(serving.output.contains("ok        \(server.dataDirectory)/users/1"))
        // The server itself rewrites its lock (naming itself) and its status file.
        let serverFiles: Set<String> = ["lock", "status"]
        #expect(
            try Self.tree(server.dataDirectory, excluding: serverFiles)
                == before.filter { !serverFiles.contains($0.key) })
        #expect(server.stop() == 0)
    }

    @Test("a member's records damaged in the log: protected, then repaired keeping every record that verifies")
    func repairDamagedRecords() throws {
        var server = try Self.household(drinks: 300, inLog: true)
        let live = try LogFiles.chunks(of: "users/2", in: server.dataDirectory)
        #expect(live.count > 10, "records past dad's snapshot: \(live.count)")
        let damaged = try LogFiles.damageChunk(of: "users/2", in: server.dataDirectory, live.count / 2)
        server = try server.killedAndRestarted()
        let dad = try server.client("dad", password: Self.dadPassword)
        expectCode(.failedPrecondition) { try dad.call(WaterV1.GetTodayRequest()) }
        let refused = try run("water-server", ["repair", "dad", "--data", server.dataDirectory])
        #expect(refused.status == 69 && refused.error.contains("needs the server stopped"), "\(refused.error)")
        #expect(server.stop() == 0)

        let repair = try run("water-server", ["repair", "dad", "--data", server.dataDirectory])
        #expect(repair.status == 0, "\(repair.error)")
        #expect(
            repair.output.contains(
                "repaired \(server.dataDirectory)/users/2 (dad's archive); the damaged files are kept in"))
        #expect(repair.output.contains("kept") && repair.output.contains("dropped"), "\(repair.output)")
        let healthy = try run("water-server", ["repair", "--all", "--data", server.dataDirectory])
        #expect(healthy.output.contains("no archive is damaged"))
        #expect(try run("water-server", ["check", "--data", server.dataDirectory]).status == 0)
        let aside = try FileManager.default.contentsOfDirectory(atPath: "\(server.dataDirectory)/users").filter {
            $0.hasPrefix("2.damaged-")
        }
        #expect(aside.count == 1)

        server = try server.restarted()
        let dadAgain = try server.client("dad", password: Self.dadPassword)
        let kept = try Self.drinkCount(dadAgain)
        #expect(kept == 299, "every drink but the damaged one is kept: \(kept)")
        // Dad's first record is his time zone, from when he was added.
        #expect(repair.output.contains("records in the log, up to record 301"), "\(repair.output)")
        #expect(repair.output.contains("record \(damaged.sequence), which is nowhere to be found"), "\(repair.output)")
        _ = try dadAgain.call(WaterV1.LogWaterRequest(entryID: dadAgain.newID().description, amountMl: 10))
        #expect(try Self.drinkCount(dadAgain) == kept + 1)
        #expect(server.stop() == 0)
    }

    @Test("a damaged accounts archive says so at login, never 'wrong password', and repair --accounts mends it")
    func damagedAccounts() throws {
        var server = try Self.household(drinks: 1, inLog: true)
        let accounts = "\(server.dataDirectory)/accounts"
        // Damage the accounts' second record in the log (mum's first session), keeping the
        // accounts themselves (the first, mum added by init).
        let chunks = try LogFiles.chunks(of: "accounts", in: server.dataDirectory)
        #expect(chunks.count >= 3, "init, logins and add member wrote records: \(chunks.count)")
        try LogFiles.damageChunk(of: "accounts", in: server.dataDirectory, 1)
        server = try server.killedAndRestarted()
        let login = try server.cli("dad").run(["login", "dad", "--password-stdin"], input: Self.dadPassword + "\n")
        #expect(login.status != 0)
        #expect(
            login.error.contains("accounts cannot be read") && login.error.contains("water-server check"),
            "\(login.error)")
        #expect(!login.error.contains("wrong username or password"))
        #expect(server.stop() == 0)

        let repair = try run("water-server", ["repair", "--accounts", "--data", server.dataDirectory])
        #expect(repair.status == 0 && repair.output.contains("repaired \(accounts)"), "\(repair.output)\(repair.error)")
        server = try server.restarted()
        #expect(
            try server.cli("mum").run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(server.stop() == 0)
    }

    @Test("a protected member shows as unavailable on the board, and the household's export has everyone else")
    func protectedMemberOnBoardAndExport() throws {
        var server = try Self.household(drinks: 5)
        try LogFiles.damageSnapshot(of: "users/2", in: server.dataDirectory)
        server = try server.restarted()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "500"]).status == 0)
        let board = try mum.run(["board"])
        #expect(board.status == 0, "\(board.error)")
        #expect(board.output.contains("1. mum"), "\(board.output)")
        #expect(board.output.contains("- dad") && board.output.contains("unavailable"), "\(board.output)")
        let wire = try mum.json(WaterV1.GetBoardResponse.self, ["board"]).board
        #expect(wire?.rows.map(\.username) == ["mum"] && wire?.unavailable.map(\.username) == ["dad"])

        let export = try mum.run(["export", "--household"])
        #expect(export.status == 0, "\(export.error)")
        #expect(
            export.error.contains("dad's archive cannot be read") && export.error.contains("exported everyone else"))
        let histories = try JSONDecoder().decode([WaterV1.MemberHistory].self, from: Data(export.output.utf8))
        #expect(histories.compactMap { $0.member?.username } == ["mum"])
        #expect(histories.first?.entries.map(\.amountMl) == [500])
        #expect(server.stop() == 0)
    }

    @Test("backup copies a damaged archive as it is and says so; restore --member puts one member back")
    func backupAndRestoreMember() throws {
        var server = try Self.household(drinks: 5)
        let root = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        let healthy = try run("water-server", ["backup", "--data", server.dataDirectory, "--to", "\(root)/healthy"])
        #expect(healthy.status == 0, "\(healthy.error)")

        // Dad logs three more, then his archive is damaged.
        server = try server.restarted()
        let dad = try server.client("dad", password: Self.dadPassword)
        for _ in 0..<3 { _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 10)) }
        #expect(server.stop() == 0)
        try LogFiles.damageSnapshot(of: "users/2", in: server.dataDirectory)
        let damaged = try run("water-server", ["backup", "--data", server.dataDirectory, "--to", "\(root)/damaged"])
        #expect(damaged.status == 0, "\(damaged.error)")
        #expect(
            damaged.error.contains("users/2 is damaged") && damaged.error.contains("copied as it is"),
            "\(damaged.error)")
        #expect(try Self.tree("\(root)/damaged/users/2") == Self.tree("\(server.dataDirectory)/users/2"))

        let restore = try run(
            "water-server",
            [
                "restore", "--from", "\(root)/healthy", "--data", server.dataDirectory,
                "--member", "dad",
            ])
        #expect(restore.status == 0, "\(restore.error)")
        #expect(
            restore.output.contains("restored dad's archive") && restore.output.contains("is kept in"),
            "\(restore.output)")
        #expect(try run("water-server", ["check", "--data", server.dataDirectory]).status == 0)
        server = try server.restarted()
        let dadAgain = try server.client("dad", password: Self.dadPassword)
        #expect(try dadAgain.call(WaterV1.GetTodayRequest()).day?.count == 5, "the backup's five drinks")
        #expect(server.stop() == 0)
    }
}
