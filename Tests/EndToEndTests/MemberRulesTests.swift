import Foundation
import Testing
import WaterProtocol

/// Issue 32, items 14, 15, 16 and 21: the rules of members, children and passwords, and what
/// the command line says about them.
@Suite("Member rules, end to end", .serialized)
struct MemberRulesTests {
    @Test("issue32 item 14: a guardian for a non-child is bad data (65) with a hint; a child is never made an admin")
    func guardiansAndRoles() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        _ = try server.addedMember("ben", by: mum)
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)
        let guardian = try mum.run(["member", "guardian", "ben", "add", "mum"])
        #expect(guardian.status == 65, "\(guardian.error)")
        #expect(
            guardian.error.contains("ben is not a child") && guardian.error.contains("--child"), "\(guardian.error)")
        let admin = try mum.run(["member", "admin", "kim", "on"])
        #expect(admin.status == 65 && admin.error.contains("a child cannot be an admin"), "\(admin.error)")
        let kim = try mum.json(WaterV1.ListMembersResponse.self, ["member", "ls"]).members.first {
            $0.username == "kim"
        }
        #expect(kim?.role == .member)
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 15: a password over 1024 bytes is refused on every path, before any of it is sent or kept")
    func longPasswords() throws {
        let long = String(repeating: "p", count: 1025)
        var template = Array("/tmp/water-init-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(folder)'") }
        let initialised = try run(
            "water-server",
            [
                "init", "--data", "\(folder)/data", "--admin", "mum", "--password-stdin", "--password-strength",
                "minimum",
            ],
            input: long + "\n")
        #expect(initialised.status == 65 && initialised.error.contains("at most 1024 bytes"), "\(initialised.error)")

        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        let added = try mum.run(["member", "add", "ben", "--password-stdin"], input: long + "\n")
        #expect(added.status == 65 && added.error.contains("at most 1024 bytes"), "\(added.error)")
        let ben = try server.addedMember("ben", by: mum)
        let reset = try mum.run(["member", "reset", "ben", "--password-stdin"], input: long + "\n")
        #expect(reset.status == 65 && reset.error.contains("at most 1024 bytes"), "\(reset.error)")
        let changed = try ben.run(["passwd", "--password-stdin"], input: "ben-password-1\n\(long)\n")
        #expect(changed.status == 65 && changed.error.contains("at most 1024 bytes"), "\(changed.error)")
        let login = try ben.run(["login", "ben", "--password-stdin"], input: long + "\n")
        #expect(login.status == 65 && login.error.contains("at most 1024 bytes"), "\(login.error)")
        // Exactly 1024 bytes is a password like any other.
        let longest = String(repeating: "q", count: 1024)
        #expect(try mum.run(["member", "reset", "ben", "--password-stdin"], input: longest + "\n").status == 0)
        #expect(try ben.run(["login", "ben", "--password-stdin"], input: longest + "\n").status == 0)
        #expect(server.stop() == 0)
        let passwd = try run(
            "water-server", ["passwd", "ben", "--data", server.dataDirectory, "--password-stdin"], input: long + "\n")
        #expect(passwd.status == 65 && passwd.error.contains("at most 1024 bytes"), "\(passwd.error)")
    }

    @Test("issue32 item 15: the command line refuses a password over 1024 bytes before it reaches the server")
    func longPasswordsRefusedHere() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        let ben = try server.addedMember("ben", by: mum)
        // With the server gone, only the client can answer: a refusal, not "cannot be reached".
        #expect(server.stop() == 0)
        let long = String(repeating: "p", count: 1025) + "\n"
        for (person, arguments, input) in [
            (mum, ["member", "add", "zed", "--password-stdin"], long),
            (mum, ["member", "reset", "ben", "--password-stdin"], long),
            (ben, ["passwd", "--password-stdin"], "ben-password-1\n" + long),
        ] {
            let refused = try person.run(arguments, input: input)
            #expect(
                refused.status == 65 && refused.error.contains("at most 1024 bytes"), "\(arguments): \(refused.error)")
        }
    }

    @Test("issue32 item 16: member add kim --child --age 6 sets her goal to EFSA's 1.2 l of drinks at 4-8 years")
    func childGoalByAge() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        let added = try mum.run(["member", "add", "kim", "--child", "--age", "6"])
        #expect(added.status == 0 && added.output.contains("1200 ml") && added.output.contains("EFSA"), "\(added)")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today", "--for", "kim"]).day?.goalMl == 1200)
        #expect(try mum.run(["member", "add", "tom", "--child", "--age", "3"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today", "--for", "tom"]).day?.goalMl == 1000)
        #expect(try mum.run(["member", "add", "lea", "--child", "--age", "11"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today", "--for", "lea"]).day?.goalMl == 1500)
        let noChild = try mum.run(
            ["member", "add", "max", "--age", "6", "--password-stdin"], input: "max-password-1\n")
        #expect(noChild.status == 64 && noChild.error.contains("--child"), "\(noChild.error)")
        let baby = try mum.run(["member", "add", "max", "--child", "--age", "1"])
        #expect(baby.status == 64 && baby.error.contains("2 to 13"), "\(baby.error)")
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 21: login words: NAME missing, children only for a child, --for kim in hints for kim")
    func loginAndHints() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        _ = try server.addedMember("ben", by: mum)
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)

        let stranger = server.cli("stranger")
        let nameless = try stranger.run(["login", "--password-stdin"], input: "ben-password-1\n")
        #expect(nameless.status == 64 && nameless.error.contains("NAME"), "\(nameless.error)")
        let wrong = try stranger.run(["login", "ben", "--password-stdin"], input: "not-his-password\n")
        #expect(wrong.status == 77 && !wrong.error.contains("child"), "\(wrong.error)")
        let nobody = try stranger.run(["login", "zed", "--password-stdin"], input: "not-his-password\n")
        #expect(nobody.error == wrong.error, "an unknown name and a wrong password read the same")
        let child = try stranger.run(["login", "kim", "--password-stdin"], input: "any-password-1\n")
        #expect(child.status == 77 && child.error.contains("member reset kim"), "\(child.error)")

        let today = try mum.run(["today", "--for", "kim"])
        #expect(today.status == 0 && today.output.contains("water-client log --for kim"), "\(today.output)")
        let unknown = try mum.run(["rm", "beef", "--for", "kim"])
        #expect(unknown.status == 65 && unknown.error.contains("--for kim"), "\(unknown.error)")
        #expect(try mum.run(["habit", "add", "read", "--for", "kim"]).status == 0)
        let habit = try mum.run(["habit", "check", "swim", "--for", "kim"])
        #expect(habit.status == 65 && habit.error.contains("habit ls --for kim"), "\(habit.error)")
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 21: what cup and habit suggest while acting for kim says --for kim")
    func cupAndHabitHints() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)
        let cups = try mum.run(["cup", "ls", "--for", "kim"])
        #expect(cups.status == 0 && cups.output.contains("water-client cup add mug 350 --for kim"), "\(cups.output)")
        let kept = try mum.run(["cup", "add", "mug", "300", "--for", "kim"])
        #expect(kept.status == 0 && kept.output.contains("water-client log mug --for kim"), "\(kept.output)")
        let habits = try mum.run(["habit", "ls", "--for", "kim"])
        #expect(habits.status == 0 && habits.output.contains("habit add read --for kim"), "\(habits.output)")
        // Your own stay as they were.
        #expect(try mum.run(["cup", "ls"]).output.contains("water-client cup add mug 350\n"))
        #expect(server.stop() == 0)
    }
}
