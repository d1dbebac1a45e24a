import Foundation
import Testing
import WaterProtocol

/// Issue 32, items 23, 24 and 25: what the programs say, said the same way everywhere.
@Suite("Everyday words, end to end", .serialized)
struct EverydayWordsTests {
    @Test("issue32 item 23: backup --to a folder whose parent does not exist says so, and copies nothing")
    func backupParentMissing() throws {
        let server = try ServerProcess.fresh()
        let parent = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path + "/usb"
        let backup = try run("water-server", ["backup", "--data", server.dataDirectory, "--to", "\(parent)/water"])
        #expect(backup.status == 1, "\(backup.error)")
        #expect(backup.error.contains("\(parent) does not exist"), "\(backup.error)")
        #expect(backup.error.contains("mkdir -p \(parent)"), "\(backup.error)")
        #expect(!FileManager.default.fileExists(atPath: parent))
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 24: edit prints the same day line as log, rm and undo")
    func editDayLine() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        let id = "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e"
        let logged = try mum.run(["log", "250", "--id", id])
        let logLine = try #require(logged.output.split(separator: "\n").last)
        #expect(logLine.contains("250 / 2000 ml  12 %  1750 ml to go  1 drink"), "\(logged.output)")
        let edited = try mum.run(["edit", id, "--amount", "300"])
        let editLine = try #require(edited.output.split(separator: "\n").last)
        // The same line, bar and all, but for the figures: the day's name first, then the day.
        #expect(editLine.contains("300 / 2000 ml  15 %  1700 ml to go  1 drink"), "\(edited.output)")
        #expect(editLine.prefix(14) == logLine.prefix(14), "\(logged.output)\n\(edited.output)")
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 25: the server's log quotes a username once, by the log's own rule")
    func usernameQuotedOnce() throws {
        let server = try ServerProcess.fresh()
        let stranger = server.cli("stranger")
        #expect(try stranger.run(["login", "dad", "--password-stdin"], input: "wrong-password-1\n").status == 77)
        #expect(try stranger.run(["login", "da d", "--password-stdin"], input: "wrong-password-1\n").status != 0)
        #expect(server.stop() == 0)
        let failed = server.log.split(separator: "\n").filter { $0.contains("login failed") }
        #expect(failed.contains { $0.contains(" user.name=dad ") }, "\(failed)")
        #expect(failed.contains { $0.contains(" user.name=\"da d\" ") }, "\(failed)")
        #expect(!failed.contains { $0.contains("\\\"") }, "\(failed)")
    }
}
