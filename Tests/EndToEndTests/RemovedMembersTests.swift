import Foundation
import Testing
import WaterProtocol

/// Issue 32, items 12 and 13: a removed member is listed, named beside their archive, and told
/// why their client stops working.
@Suite("Removed members, end to end", .serialized)
struct RemovedMembersTests {
    @Test("issue32 item 12: member ls --removed lists removed members; status and check name their archives")
    func removedListedAndNamed() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        _ = try server.addedMember("ben", by: mum)
        #expect(try mum.run(["member", "rm", "ben", "--yes"]).status == 0)

        let removed = try mum.run(["member", "ls", "--removed"])
        #expect(removed.status == 0 && removed.output.contains("ben"), "\(removed.output) \(removed.error)")
        #expect(removed.output.contains("member restore ben"), "\(removed.output)")
        #expect(!removed.output.contains("mum"), "only the removed ones: \(removed.output)")
        #expect(!(try mum.run(["member", "ls"]).output.contains("ben")))

        let status = try run("water-server", ["status", "--data", server.dataDirectory]).output
        #expect(status.contains("users/2 (ben, removed)"), "\(status)")
        let check = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(check.status == 0 && check.output.contains("ben's archive, removed"), "\(check.output)")
        #expect(server.stop() == 0)
    }

    @Test("issue32 item 13: a removed member's client hears they are no longer a member, not that a session expired")
    func removedMemberTold() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        let ben = try server.addedMember("ben", by: mum)
        #expect(try mum.run(["member", "rm", "ben", "--yes"]).status == 0)
        let refused = try ben.run(["today"])
        #expect(refused.status == 77, "\(refused.error)")
        #expect(refused.error.contains("you are no longer a member of this household"), "\(refused.error)")
        #expect(!refused.error.contains("expired"), "\(refused.error)")
        // A clean stop snapshots the accounts, and the start reads the removal from there: still
        // told apart.
        let restarted = try server.restarted(["--listen", "\(server.address)"])
        #expect(try ben.run(["today"]).error.contains("no longer a member"))
        // Restored, the old session stays ended: they log in again.
        #expect(try mum.run(["member", "restore", "ben"]).status == 0)
        let again = try ben.run(["today"])
        #expect(again.status == 77 && !again.error.contains("no longer a member"), "\(again.error)")
        #expect(restarted.stop() == 0)
    }

    @Test("issue32 item 13: member rm without --yes does not say the removal is for good")
    func removalNotForGood() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.loggedInAdmin()
        _ = try server.addedMember("ben", by: mum)
        let unasked = try mum.run(["member", "rm", "ben"])
        #expect(unasked.status == 64 && unasked.error.contains("--yes"), "\(unasked.error)")
        #expect(!unasked.error.contains("for good"), "\(unasked.error)")
        #expect(unasked.error.contains("member restore"), "\(unasked.error)")
        #expect(server.stop() == 0)
    }
}
