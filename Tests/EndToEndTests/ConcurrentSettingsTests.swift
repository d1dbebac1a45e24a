import Foundation
import Synchronization
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync

/// The newer kinds of write from many connections at once, then a SIGKILL in the middle:
/// excused days (for a child, by an admin), privacy levels, guardians and admin roles. After the
/// restart each one is as the last acknowledged write left it, or as the one in flight at the
/// kill would have (never anything else), and `check` finds every archive healthy.
@Suite("Excused days, privacy, guardians and roles from many connections, end to end", .serialized)
struct ConcurrentSettingsTests {
    /// For each thing written (a day, a member), the value the last acknowledged write gave it
    /// and the value of a write sent but not answered. Each thing is written by one connection
    /// only, one write at a time, so at most its last write is in doubt.
    final class Ledger<Key: Hashable & Sendable, Value: Equatable & Sendable>: Sendable {
        private let state = Locked([Key: (acknowledged: Value?, inFlight: Value?)]())

        /// Notes `value` as in flight for `key` while `send` writes it, and as acknowledged
        /// once it returns.
        func write(_ value: Value, to key: Key, _ send: () throws -> Void) rethrows {
            state.withLock { $0[key, default: (nil, nil)].inFlight = value }
            try send()
            state.withLock { $0[key] = (value, nil) }
        }

        /// The keys whose stored value (`stored`, or `initial` where nothing was written)
        /// neither an acknowledged write nor the one in flight explains.
        func unexplained(initial: Value, stored: (Key) -> Value) -> [Key] {
            state.withLock { $0 }.compactMap { key, written in
                let value = stored(key)
                return value == (written.acknowledged ?? initial) || value == written.inFlight ? nil : key
            }
        }
    }

    final class Writes: Sendable {
        let excused = Ledger<String, Bool>()
        let privacy = Ledger<String, WaterV1.Privacy>()
        let guardians = Ledger<String, Bool>()
        let admins = Ledger<String, Bool>()
        let acknowledged = Atomic<Int>(0)
        let killed = Atomic<Bool>(false)
    }

    // With mum and kim, 16 members: the household's cap.
    static let privateMembers = ["p0", "p1", "p2", "p3", "p4", "p5"]
    static let guardianMembers = ["g0", "g1", "g2", "g3"]
    static let adminMembers = ["r0", "r1", "r2", "r3"]
    static let options = ["--max-per-address", "64"]

    @Test("excused days, privacy, guardians and roles from 8 connections: a SIGKILL in the middle loses none")
    func settingsSurviveAKill() throws {
        var server = try ServerProcess.fresh(Self.options)
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "kim", child: true))
        for name in Self.privateMembers + Self.guardianMembers + Self.adminMembers {
            _ = try mum.call(WaterV1.AddMemberRequest(username: name, password: "\(name)-password-1"))
        }
        let today = try #require(LocalDate(try mum.call(WaterV1.GetTodayRequest()).day?.date ?? ""))
        let writes = Writes()
        let group = DispatchGroup()
        let (address, pid) = (server.address, server.pid)
        func connection(_ name: String, _ password: String, _ body: @escaping @Sendable (WaterClient) throws -> Void) {
            group.writer(address, name, password, body)
        }
        @Sendable func acknowledged() {
            let count = writes.acknowledged.add(1, ordering: .relaxed).newValue
            if count >= 500, writes.killed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
            {
                kill(pid, SIGKILL)
            }
        }
        // Four admins' connections excuse kim's days (every third day over the year behind, so
        // never 14 in any 28) and take back every third of them again.
        for lane in 0..<4 {
            connection("mum", adminPassword) { client in
                for step in stride(from: lane, to: 120, by: 4) {
                    let date = today.adding(days: -3 * step).description
                    try writes.excused.write(true, to: date) {
                        _ = try client.call(WaterV1.ExcuseDaysRequest(fromDate: date, reason: "sick", forMember: "kim"))
                    }
                    acknowledged()
                    guard step % 3 == 0 else { continue }
                    try writes.excused.write(false, to: date) {
                        _ = try client.call(WaterV1.UnexcuseDaysRequest(dates: [date], forMember: "kim"))
                    }
                    acknowledged()
                }
            }
        }
        // Two admins' connections turn three members' privacy each round and round (for_member).
        // Each connection goes round several members, so that at the kill only the one write
        // it has in flight is in doubt.
        let levels: [WaterV1.Privacy] = [.percent, .hidden, .full]
        for lane in 0..<2 {
            connection("mum", adminPassword) { client in
                for step in 0..<100 {
                    for (index, name) in Self.privateMembers.enumerated() where index % 2 == lane {
                        let level = levels[(step + index) % levels.count]
                        try writes.privacy.write(level, to: name) {
                            _ = try client.call(WaterV1.SetPrivacyRequest(privacy: level, forMember: name))
                        }
                        acknowledged()
                    }
                }
            }
        }
        // One admin makes and unmakes kim's guardians, another makes members admins and not.
        connection("mum", adminPassword) { client in
            for step in 0..<60 {
                for (index, guardian) in Self.guardianMembers.enumerated() {
                    let added = (step + index) % 2 == 0
                    try writes.guardians.write(added, to: guardian) {
                        _ = try client.call(
                            WaterV1.SetGuardianRequest(username: "kim", guardian: guardian, remove: !added))
                    }
                    acknowledged()
                }
            }
        }
        connection("mum", adminPassword) { client in
            for step in 0..<60 {
                for (index, name) in Self.adminMembers.enumerated() {
                    let admin = (step + index) % 2 == 0
                    try writes.admins.write(admin, to: name) {
                        _ = try client.call(WaterV1.SetRoleRequest(username: name, role: admin ? .admin : .member))
                    }
                    acknowledged()
                }
            }
        }
        group.wait()
        let wasKilled = writes.killed.load(ordering: .relaxed)
        #expect(wasKilled, "the server was killed in the middle of the writes")

        server = try server.killedAndRestarted(Self.options)
        let reader = try server.client("mum", password: adminPassword)
        var excused: Set<String> = []
        try reader.stream(WaterV1.ExportRequest(household: true)) { response in
            if let history = response.history, history.member?.username == "kim" {
                excused.formUnion(history.excused.map(\.date))
            }
            return true
        }
        #expect(writes.excused.unexplained(initial: false, stored: { excused.contains($0) }) == [])
        var privacy: [String: WaterV1.Privacy] = [:]
        for name in Self.privateMembers {
            privacy[name] = try reader.call(WaterV1.GetSettingsRequest(forMember: name)).settings?.privacy
        }
        #expect(writes.privacy.unexplained(initial: .full, stored: { privacy[$0] ?? .full }) == [])
        let members = try reader.call(WaterV1.ListMembersRequest()).members
        let guardians = Set(members.first { $0.username == "kim" }?.guardians ?? [])
        #expect(writes.guardians.unexplained(initial: false, stored: { guardians.contains($0) }) == [])
        let admins = Set(members.filter { $0.role == .admin }.map(\.username))
        #expect(writes.admins.unexplained(initial: false, stored: { admins.contains($0) }) == [])

        let check = try run("water-server", ["check", "--data", server.dataDirectory])
        #expect(check.status == 0 && check.output.contains("healthy"), "\(check.output)")
        #expect(server.stop() == 0)
    }
}
