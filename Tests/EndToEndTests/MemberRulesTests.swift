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
}
