import Foundation
import Testing
import WaterTestSupport

/// Logging in and out, and the passwords and certificates on the way, through the real binaries
/// (issue 22).
@Suite("Login, logout and passwords, end to end", .serialized)
struct LoginTests {
    @Test("login Mum says usernames are lowercase, before asking for a password")
    func lowercaseLogin() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let login = try mum.run(["login", "Mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 64, "\(login)")
        #expect(login.error.contains("usernames are lowercase: water-client login mum"), "\(login.error)")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
    }

    @Test("login reaches the server (and settles its certificate) before it reads a password")
    func loginConnectsFirst() throws {
        let server = try ServerProcess.fresh(tls: true)
        let mum = server.cli("mum")
        let address = server.address
        #expect(server.stop() == 0)
        // Nobody there: said at once, and the password on standard input is never read.
        let down = try mum.run(["--server", "\(address)", "login", "mum", "--password-stdin"], input: "")
        #expect(down.status == 69, "\(down)")
        #expect(!down.error.contains("no password given"), "\(down.error)")
    }

    @Test("a wrong --fingerprint is the one typed, not 'pinned', and ends as a certificate not trusted does (77)")
    func wrongFingerprint() throws {
        let server = try ServerProcess.fresh(tls: true)
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let wrong = "SHA256:" + String(repeating: "A", count: 43)
        let login = try mum.run(
            ["login", "mum", "--password-stdin", "--fingerprint", wrong], input: adminPassword + "\n")
        #expect(login.status == 77, "\(login)")
        #expect(login.error.contains("not \(wrong), the one --fingerprint gave; nothing was sent"), "\(login.error)")
        #expect(!login.error.contains("pinned"), "\(login.error)")
        // Not trusted when there is no terminal to ask: the same code.
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 77)
    }

    @Test("two different passwords typed at the prompts say they differ, not 'no password given'; no one is added")
    func passwordsDiffer() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let answers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Python/tty_answers.py")
        let typed = try ChildProcess.run(
            "/usr/bin/python3",
            [
                answers.path, "password for ben", "ben-password-1", "again", "ben-password-2", "--",
                productsDirectory.appendingPathComponent("water-client").path, "member", "add", "ben",
            ], environment: mum.environment, seconds: 60)
        #expect(typed.status == 64, "\(typed)")
        #expect(typed.output.contains("the two passwords typed differ; nothing was changed"), "\(typed.output)")
        #expect(!typed.output.contains("no password given"), "\(typed.output)")
        #expect(!(try mum.run(["member", "ls"]).output.contains("ben")))
    }

    @Test("whoami names the server it asked")
    func whoamiNamesTheServer() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let whoami = try mum.run(["whoami"])
        #expect(
            whoami.output
                == "mum (mum), admin, UTC, on \(server.address)\n"
                + "privacy full: others see everything of yours on the board, millilitres too\n",
            "\(whoami.output)")
    }

    @Test("logout with the server down keeps the session and names --local, which forgets it here")
    func logoutLocal() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(server.stop() == 0)
        let down = try mum.run(["logout"])
        #expect(down.status == 69 && down.error.contains("water-client logout --local"), "\(down)")
        #expect(try mum.run(["whoami"]).error.contains("not logged in") == false, "the session was kept")
        let local = try mum.run(["logout", "--local"])
        #expect(local.status == 0 && local.output.hasPrefix("forgot the session on this computer"), "\(local)")
        #expect(try mum.run(["whoami"]).status == 77)
    }
}
