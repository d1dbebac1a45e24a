import Foundation
import Testing

@testable import WaterClient

/// Issue 18, item 8: a token only ever goes to the server that issued it.
@Suite("ClientFiles: one session per server")
struct ClientFilesTests {
    let home = NSTemporaryDirectory() + "client-files-\(UUID())"
    var files: ClientFiles { ClientFiles(environment: ["XDG_CONFIG_HOME": home]) }

    func session(_ server: String, _ username: String, token: UInt8) -> ClientFiles.Session {
        ClientFiles.Session(server: server, username: username, token: [UInt8](repeating: token, count: 32))
    }

    @Test("each server's session is its own file, read only for that server")
    func perServer() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        try files.saveSession(session("pi.local:7420", "mum", token: 1))
        try files.saveSession(session("10.0.0.9:7420", "mum", token: 2))
        #expect(files.loadSession(for: "pi.local:7420")?.token.first == 1)
        #expect(files.loadSession(for: "10.0.0.9:7420")?.token.first == 2)
        #expect(files.loadSession(for: "other:7420") == nil)
        files.removeSession(for: "pi.local:7420")
        #expect(files.loadSession(for: "pi.local:7420") == nil)
        #expect(files.loadSession(for: "10.0.0.9:7420")?.token.first == 2)
        var info = stat()
        #expect(stat("\(home)/water/sessions/10.0.0.9:7420", &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test("a session file in the wrong place (naming another server) is not used")
    func misplaced() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        try files.saveSession(session("a:7420", "mum", token: 1))
        try FileManager.default.copyItem(
            atPath: "\(home)/water/sessions/a:7420", toPath: "\(home)/water/sessions/b:7420")
        #expect(files.loadSession(for: "b:7420") == nil)
    }

    @Test("the one session file of before is read as its server's, and goes once that server's is saved")
    func legacy() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let hex = String(repeating: "07", count: 32)
        try FileManager.default.createDirectory(atPath: "\(home)/water", withIntermediateDirectories: true)
        try "server pi.local:7420\nusername mum\ntoken \(hex)\ntime_zone Europe/Berlin\n".write(
            toFile: "\(home)/water/session", atomically: true, encoding: .utf8)
        #expect(files.defaultServer() == "pi.local:7420")
        let old = try #require(files.loadSession(for: "pi.local:7420"))
        #expect(old.username == "mum" && old.token.first == 7 && old.timeZone == "Europe/Berlin")
        #expect(files.loadSession(for: "other:7420") == nil)
        // Saving another server's session leaves it; saving its own moves it, keeping the default.
        try files.saveSession(session("other:7420", "ann", token: 3))
        #expect(FileManager.default.fileExists(atPath: "\(home)/water/session"))
        try files.saveSession(old)
        #expect(!FileManager.default.fileExists(atPath: "\(home)/water/session"))
        #expect(files.loadSession(for: "pi.local:7420") == old)
        #expect(files.defaultServer() == "pi.local:7420")
    }

    @Test("logging out of the server the old file names removes it too")
    func legacyLogout() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: "\(home)/water", withIntermediateDirectories: true)
        try "server pi.local:7420\nusername mum\ntoken \(String(repeating: "07", count: 32))\n".write(
            toFile: "\(home)/water/session", atomically: true, encoding: .utf8)
        files.removeSession(for: "other:7420")
        #expect(files.loadSession(for: "pi.local:7420") != nil)
        files.removeSession(for: "pi.local:7420")
        #expect(files.loadSession(for: "pi.local:7420") == nil)
    }

    @Test("the default server is the last one saved as such")
    func defaultServer() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(files.defaultServer() == nil)
        try files.saveDefaultServer("pi.local:7420")
        try files.saveDefaultServer("[::1]:7420")
        #expect(files.defaultServer() == "[::1]:7420")
    }

    @Test(
        "a server's name becomes one file name, never a path",
        arguments: [
            ("pi.local:7420", "pi.local:7420"), ("[::1]:7420", "%5B::1%5D:7420"),
            ("../../etc:1", "..%2F..%2Fetc:1"), ("a b%:1", "a%20b%25:1"),
        ])
    func fileNames(server: String, name: String) {
        #expect(ClientFiles.pathComponent(server) == name)
        #expect(!ClientFiles.sessionFile(for: server).dropFirst("sessions/".count).contains("/"))
    }

    @Test("what a server said is kept in that server's own state directory")
    func cachePerServer() {
        let environment = ["XDG_STATE_HOME": "/state"]
        #expect(
            StatusCache.path(environment: environment, server: "pi:7420") == "/state/water/servers/pi:7420/status.json")
        #expect(
            PromptFigures.path(besideCache: StatusCache.path(environment: environment, server: "status.json:1"))
                == "/state/water/servers/status.json:1/prompt")
    }
}
