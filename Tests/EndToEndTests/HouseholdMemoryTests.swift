import Foundation
import Testing
import WaterClient
import WaterProtocol
import WaterTestSupport

/// What the real server keeps in memory for a household: idle members' archives leave it and
/// come back whole, and the household holds at most 16 members.
@Suite("Household memory, end to end", .serialized)
struct HouseholdMemoryTests {
    /// Every drink `client` has, as text (id, amount, time), sorted.
    static func drinks(_ client: WaterClient) throws -> [String] {
        var drinks: [String] = []
        try client.stream(WaterV1.ExportRequest()) { response in
            drinks += (response.history?.entries ?? []).map { "\($0.entryID) \($0.amountMl) \($0.atUnixMs)" }
            return true
        }
        return drinks.sorted()
    }

    @Test("with a sweep every second, idle archives leave memory and load again with every drink")
    func idleArchivesDropped() throws {
        let server = try ServerProcess.fresh(["--idle-sweep", "1"])
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        let dad = try server.client("dad", password: "dad-password-1")
        for (n, member) in [mum, dad].enumerated() {
            for amount in 0..<20 {
                _ = try member.call(
                    WaterV1.LogWaterRequest(entryID: member.newID().description, amountMl: Int32(100 + 10 * n + amount))
                )
            }
        }
        let before = (try Self.drinks(mum), try Self.drinks(dad))
        #expect(before.0.count == 20 && before.1.count == 20)

        // Untouched, both members' archives are snapshotted, then dropped: the accounts and
        // the household's list stay.
        #expect(
            waitUntil {
                server.statusFile["archives_loaded"] == "2" && Int(server.statusFile["archives_dropped"] ?? "") == 2
            }, "\(server.statusFile)")
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(status.output.contains(" 2 archives in memory, 2 dropped idle"), "\(status.output)")

        #expect(try Self.drinks(mum) == before.0)
        #expect(try Self.drinks(dad) == before.1)
        _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 999))
        #expect(try Self.drinks(dad).count == 21)
        #expect(server.stop() == 0)
    }

    @Test("a 17th member is refused naming the cap, added or restored")
    func memberCap() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        for n in 2...16 {
            _ = try mum.call(WaterV1.AddMemberRequest(username: "m\(n)", password: "member-password-\(n)"))
        }
        let added = #expect(throws: WaterError.self) {
            try mum.call(WaterV1.AddMemberRequest(username: "m17", password: "member-password-17"))
        }
        #expect(added?.code == .failedPrecondition)
        #expect(added?.message.contains("at most 16 members in a household") == true, "\(String(describing: added))")

        _ = try mum.call(WaterV1.RemoveMemberRequest(username: "m2"))
        _ = try mum.call(WaterV1.AddMemberRequest(username: "m17", password: "member-password-17"))
        let restored = #expect(throws: WaterError.self) { try mum.call(WaterV1.RestoreMemberRequest(username: "m2")) }
        #expect(restored?.code == .failedPrecondition)
        #expect(restored?.message.contains("at most 16 members") == true)
        #expect(server.stop() == 0)
    }
}
