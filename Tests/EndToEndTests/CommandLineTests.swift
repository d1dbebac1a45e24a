import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTestSupport

@Suite("The command lines", .serialized)
struct CommandLineTests {
    @Test("every water-client command has --help, and mistakes are usage errors (64)")
    func help() throws {
        let person = CommandLineUser(environment: ["WATER_SERVER": "127.0.0.1:1", "XDG_CONFIG_HOME": "/nonexistent"])
        for command in [
            "login", "logout", "whoami", "passwd", "log", "undo", "edit", "rm", "today", "week", "history", "goal",
            "cup", "board", "member",
        ] {
            let result = try person.run([command, "--help"])
            #expect(result.status == 0 && result.output.contains("usage: water-client \(command)"), "\(command)")
        }
        // board has more options than a synopsis shows: its own help lists them.
        #expect(try person.run(["--help"]).output.contains("board [options]"))
        let board = try person.run(["board", "--help"]).output
        #expect(board.contains("--week last|YYYY-Www") && board.contains("--history") && board.contains("--weeks N"))
        #expect(try person.run(["drink"]).status == 64)
        #expect(try person.run(["history", "--days", "0"]).status == 64)
        #expect(try person.run(["board", "--by", "mood"]).status == 64)
    }

    @Test("no server: one line that says what to do, exit 69")
    func unavailable() throws {
        let home = "/tmp/water-cli-\(getpid())"
        defer { _ = system("rm -rf \(home)") }
        let person = CommandLineUser(environment: ["WATER_SERVER": "127.0.0.1:1", "XDG_CONFIG_HOME": home])
        let result = try person.run(["login", "mum", "--password-stdin"], input: "x\n")
        #expect(result.status == 69)
        #expect(result.error.hasPrefix("water-client: cannot reach the server at 127.0.0.1:1"))
        #expect(result.error.contains("is water-server running there?"))
        #expect(result.error.split(separator: "\n").count == 1)
    }

    @Test("the session is kept 0600, logout ends it on the server, and admin commands refuse a running server")
    func sessionsAndAdmin() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let sessionFile =
            URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
            + "/mum/water/sessions/\(server.address)"
        var info = stat()
        #expect(stat(sessionFile, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try mum.json(WaterV1.WhoAmIResponse.self, ["whoami"]).member?.username == "mum")
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(
            try mum.json(WaterV1.ListMembersResponse.self, ["member", "ls"]).members.map(\.username) == ["dad", "mum"])
        // A member is not an admin.
        let dad = server.cli("dad")
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try dad.run(["member", "rm", "mum", "--yes"]).status == 77)
        // While the server runs, the data directory is locked: passwd refuses clearly.
        let passwd = try run(
            "water-server", ["passwd", "dad", "--data", server.dataDirectory, "--password-stdin"],
            input: "new-password-1\n")
        #expect(passwd.status == 69)
        #expect(passwd.error.contains("in use by pid"))
        #expect(try mum.run(["logout"]).status == 0)
        #expect(try mum.run(["today"]).status == 77)
        #expect(server.stop() == 0)
        // Stopped, passwd works, and ends dad's sessions.
        let reset = try run(
            "water-server",
            [
                "passwd", "dad", "--data", server.dataDirectory, "--password-stdin",
                "--password-strength", "minimum",
            ], input: "new-password-1\n")
        #expect(reset.status == 0, "\(reset.error)")
        // On the same address, where dad's login is kept: it is passwd that ends it.
        let restarted = try server.restarted(["--listen", "\(server.address)"])
        let dadAgain = restarted.cli("dad")
        #expect(try dadAgain.run(["today"]).status == 77)
        #expect(try dadAgain.run(["login", "dad", "--password-stdin"], input: "new-password-1\n").status == 0)
        // passwd: the current password, then the new one; the old one stops working.
        #expect(
            try dadAgain.run(["passwd", "--password-stdin"], input: "wrong-password\nnewer-password-2\n").status == 77)
        #expect(
            try dadAgain.run(["passwd", "--password-stdin"], input: "new-password-1\nnewer-password-2\n").status == 0)
        #expect(try dadAgain.run(["whoami"]).status == 0)  // this session goes on with its new token
        #expect(try dadAgain.run(["login", "dad", "--password-stdin"], input: "new-password-1\n").status == 77)
        // An admin renames and resets; the member logs in under the new name and password.
        let mumAgain = restarted.cli("mum")
        #expect(try mumAgain.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mumAgain.run(["member", "rename", "dad", "--to", "papa", "--display-name", "Papa"]).status == 0)
        #expect(
            try mumAgain.run(["member", "reset", "papa", "--password-stdin"], input: "reset-password-3\n").status == 0)
        #expect(try dadAgain.run(["today"]).status == 77)  // the reset ended his session
        #expect(try dadAgain.run(["login", "papa", "--password-stdin"], input: "reset-password-3\n").status == 0)
        #expect(try dadAgain.json(WaterV1.WhoAmIResponse.self, ["whoami"]).member?.displayName == "Papa")
        let last = try mumAgain.run(["member", "rm", "mum", "--yes"])
        #expect(last.status == 1 && last.error.contains("last admin"))  // FAILED_PRECONDITION: the household keeps an admin
        #expect(try mumAgain.run(["member", "rm", "papa", "--yes"]).status == 0)
        #expect(try dadAgain.run(["today"]).status == 77)
        #expect(restarted.stop() == 0)
    }
}

@Suite("water-server status", .serialized)
struct StatusTests {
    @Test("shows a running server's uptime, connections, members and archives, and a stopped one as such")
    func status() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        // The server writes its status every 5 seconds: wait for the write that counts these.
        #expect(
            waitUntil { server.statusFile["members"] == "2" && server.statusFile["connections"] == "1" },
            "\(server.statusFile)")
        let running = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(running.status == 0)
        #expect(running.output.contains("running: pid \(server.pid)"))
        #expect(running.output.contains("connections: 1"))
        // What it holds: its memory, and the archives in it (the accounts and the household's
        // list at least).
        let loaded = try #require(server.statusFile["archives_loaded"].flatMap { Int($0) })
        #expect(loaded >= 2)
        #expect(running.output.contains(" MiB private, \(loaded) archives in memory"), "\(running.output)")
        let memory = try #require(server.statusFile["memory_private_kib"].flatMap { Int($0) })
        #expect(memory > 1024 && memory < 512 * 1024, "\(memory) KiB")
        #expect(running.output.contains("members: 2"))
        #expect(running.output.contains("protected: none"))
        #expect(
            running.output.contains("users/1") && running.output.contains("users/2")
                && running.output.contains("accounts"))
        #expect(server.stop() == 0)
        let stopped = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(stopped.output.hasPrefix("not running"))
    }

    @Test("after a power cut, a status file naming a pid now some other program's says not running")
    func reusedPID() throws {
        let server = try ServerProcess.fresh()
        #expect(waitUntil { server.statusFile["pid"] == "\(server.pid)" }, "\(server.statusFile)")
        #expect(server.killAbruptly() == 128 + SIGKILL)
        // The pid is given to another program: this test's own process, alive and holding no lock.
        let path = "\(server.dataDirectory)/status"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "pid \(server.pid)\n", with: "pid \(getpid())\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("pid \(getpid())\n"))
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(status.output.hasPrefix("not running"), "\(status.output)")
    }
}
