import WaterClient
import WaterCore
import WaterServer
import WaterStore
import WaterTestSupport
import WaterTransport
import WaterZoneInfo

/// The household every server benchmark runs on: an admin, 10 members with 5 years of drinks each,
/// and newcomers with none, all with one password.
extension ServerBenchmark {
    /// A data directory with 10 members of 5 years each (about 18 000 entries apiece), all
    /// with the same password. The connections of the load phases log in as them in turn, as
    /// Redis's are given the same 10-member board. `newcomers` more members, `n1`, `n2`, ...,
    /// have no history yet: room under the caps for a load of a million logs.
    static func prepare(_ data: String, newcomers: Int = 0) throws {
        _ = try AdminCommands.initialize(
            dataDirectory: data, admin: "admin", password: Self.password, timeZone: .utc,
            strength: .minimum, logger: .silent)
        let store = try FileArchiveStore(
            path: data, options: StoreOptions(timeZones: ZoneInfo.system), owner: "water-bench")
        defer { store.close() }
        let hash = PasswordHasher(strength: .minimum).hashNow(Self.password)!
        func add(_ name: String) throws -> Archive<MemberArchive> { try addMember(name, to: store, hash: hash) }
        for name in (0..<newcomers).map({ "n\($0 + 1)" }) { _ = try add(name) }
        for (index, name) in (1...Self.historic).map({ "h\($0)" }).enumerated() {
            let archive = try add(name)
            var history = RealisticHistory(seed: UInt64(index))
            let entries = history.entries(
                days: 5 * 365, startingAt: UnixTime.nowMilliseconds() - Int64(5 * 365 + 1) * 86_400_000)
            for chunk in stride(from: 0, to: entries.count, by: 2000) {
                try archive.commitAndWait { _ in
                    entries[chunk..<min(chunk + 2000, entries.count)].map { .water(.logged($0)) }
                }
            }
            archive.compact()
        }
        store.flush()
    }

    /// Adds member `name` (password hash `hash`) and makes their archive.
    static func addMember(_ name: String, to store: FileArchiveStore, hash: String) throws -> Archive<MemberArchive> {
        let id: UInt64 = try store.accounts.commitAndWait(
            { book in
                [
                    try book.validateAdd(
                        username: name, displayName: name, role: .member, timeZone: .utc, passwordHash: hash, now: 0)
                ]
            }, result: { $0.account(named: name)!.id })
        return try store.createMember(id)
    }

    static func login(_ address: HostPort, _ name: String, password: String = password) throws -> WaterClient {
        let client = try WaterClient(configuration: ClientConfiguration(server: address, security: .plaintext))
        try client.login(username: name, password: password)
        return client
    }
}
