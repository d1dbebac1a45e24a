import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterSync

/// Issue 18, item 8: a token only ever goes to the server that issued it.
@Suite("One session per server, end to end", .serialized)
struct ServerSessionsTests {
    /// A person talking plaintext to loopback servers, with no WATER_SERVER: `--server` or the
    /// last login decides.
    static func person() -> CommandLineUser {
        CommandLineUser.alone(["WATER_PLAINTEXT": "1"])
    }

    static func login(_ person: CommandLineUser, _ server: ServerProcess) throws {
        let login = try person.run(
            ["--server", server.address.description, "login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 0, "\(login.error)")
    }

    @Test("--server B with a login only for A: 'not logged in to B' (77), nothing sent to B, nothing of A's shown")
    func otherServer() throws {
        let a = try ServerProcess.fresh()
        let mum = Self.person()
        try Self.login(mum, a)
        #expect(try mum.run(["log", "500"]).status == 0)
        #expect(try mum.run(["today"]).output.contains("500"))
        let connections = Locked(0)
        try withFakeServer({ _ in connections.withLock { $0 += 1 } }) { port in
            let b = "127.0.0.1:\(port)"
            for command in [["today"], ["log", "250"], ["todo", "ls"], ["whoami"], ["sync"]] {
                let result = try mum.run(["--server", b] + command)
                #expect(result.status == 77, "\(command): \(result.error)")
                #expect(result.error.contains("not logged in to \(b): run water-client --server \(b) login"))
                #expect(!result.output.contains("500"))
            }
            #expect(!(try mum.run(["--server", b, "prompt"]).output.contains("500")))
            #expect(try mum.run(["--server", b, "outbox"]).output == "nothing waits on this computer\n")
        }
        #expect(connections.withLock { $0 } == 0, "a connection reached the other server")
        // B down, A's day cached here: still nothing of A's shown as B's.
        #expect(a.stop() == 0)
        let down = try mum.run(["--server", "127.0.0.1:1", "today"])
        #expect(down.status == 77 && !down.output.contains("500"), "\(down.output)")
        // A's own cache is still A's.
        #expect(try mum.run(["today"]).output.contains("500"))
    }

    @Test("two servers, two logins: their own sessions and caches; without --server, the last login's")
    func twoServers() throws {
        let a = try ServerProcess.fresh()
        let b = try ServerProcess.fresh()
        let mum = Self.person()
        try Self.login(mum, a)
        #expect(try mum.run(["log", "500"]).status == 0)
        try Self.login(mum, b)
        #expect(try mum.run(["log", "300"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 300)
        #expect(
            try mum.json(WaterV1.GetTodayResponse.self, ["--server", a.address.description, "today"]).day?.amountMl
                == 500)
        #expect(try mum.run(["prompt"]).output == "💧 300/2000\n")
        #expect(try mum.run(["--server", a.address.description, "prompt"]).output == "💧 500/2000\n")
        // Away from both: each shows what it said, and a write waits for its own server.
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
        let offlineA = try mum.run(["--server", a.address.description, "today"])
        #expect(offlineA.status == 0 && offlineA.output.contains("500 / 2000"), "\(offlineA.output)")
        #expect(!offlineA.output.contains("300 / 2000"))
        #expect(try mum.run(["log", "100"]).status == 0)
        #expect(try mum.run(["today"]).output.contains("400 / 2000"))
        #expect(
            try mum.run(["--server", a.address.description, "outbox"]).output == "nothing waits on this computer\n")
    }

    @Test("a session file from before (one login for the computer) keeps its login working, then moves")
    func legacySession() throws {
        let server = try ServerProcess.fresh()
        let mum = Self.person()
        try Self.login(mum, server)
        let config = mum.environment["XDG_CONFIG_HOME"]! + "/water"
        let files = FileManager.default
        // As an older client left it: one `session` file naming its server, nothing else.
        try files.moveItem(atPath: "\(config)/sessions/\(server.address)", toPath: "\(config)/session")
        try files.removeItem(atPath: "\(config)/sessions")
        try files.removeItem(atPath: "\(config)/server")
        #expect(try mum.json(WaterV1.WhoAmIResponse.self, ["whoami"]).member?.username == "mum")
        #expect(try mum.run(["log", "250"]).status == 0)
        // The next save of the session (the zone it learns) moves it into its server's file.
        #expect(try mum.run(["zone", "Europe/Berlin"]).status == 0)
        #expect(!files.fileExists(atPath: "\(config)/session"))
        #expect(files.fileExists(atPath: "\(config)/sessions/\(server.address)"))
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 250)
        #expect(try mum.run(["logout"]).status == 0)
        #expect(try mum.run(["today"]).status == 77)
        #expect(server.stop() == 0)
    }
}
