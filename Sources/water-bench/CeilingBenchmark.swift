import Foundation
import Glibc
import WaterClient
import WaterCore
import WaterProtocol
import WaterServer
import WaterStore
import WaterSync
import WaterTransport
import WaterZoneInfo

/// `water-bench ceiling`: the memory the server holds for a household at its caps (issue 30
/// item 2). 16 members (the household's cap) each hold 100 000 drinks (the cap in all: 27 a
/// day from 2001-01-01, under 10 000 a calendar year), written straight into the store. The
/// release water-server is started on them with a sweep every 2 seconds, and its RssAnon read:
/// at the start, with every archive loaded (a board reads each), once the sweep has dropped them
/// all, and after a restart with every archive loaded again. Then the worst case right after
/// writing: a fresh household of 16 members with no drinks, the server started on it with the
/// same sweep, and all 16 importing the same 100 000 drinks each at once through `Transfer/Import`
/// (one connection a member, 4000 entries a call as `water-client import` sends them): its RssAnon
/// at the peak (read every 100 ms), right after the imports, and once the sweep dropped them.
enum CeilingBenchmark {
    static let drinksPerMember = 100_000
    static let drinksPerDay = 27

    /// Runs it in a scratch directory under `directory`; returns the figures, printed as read.
    static func run(directory: String) throws -> [(key: String, value: Double)] {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        try fill(data)
        var readings = Figures()
        func read(_ key: String, of server: Spawned) {
            readings.record(key, ServerBenchmark.statusMiB("RssAnon:", of: server.pid))
        }

        var (server, address) = try ServerBenchmark.startWater(data, options: ["--idle-sweep", "2"])
        defer { server.stop() }
        read("rss_anon_mib_start", of: server)
        try RetentionBenchmark.loadEveryArchive(address, token: try ServerBenchmark.login(address, "admin").token)
        read("rss_anon_mib_full", of: server)
        let members = AccountBook.maximumMembers
        guard waitForStatus(data, "archives_dropped", atLeast: members) else {
            throw WaterBenchError("the idle sweep did not drop the \(members) archives within 60 s")
        }
        read("rss_anon_mib_after_sweep", of: server)

        server.stop()
        (server, address) = try ServerBenchmark.startWater(data)
        try RetentionBenchmark.loadEveryArchive(address, token: try ServerBenchmark.login(address, "admin").token)
        read("rss_anon_mib_restarted_full", of: server)
        server.stop()

        try importEverything(into: "\(scratch.path)/imports", read: read) { readings.record($0, $1) }
        return readings.results
    }

    /// Entries per Import call, as `water-client import` sends them: well under the 1 MiB frame.
    static let entriesPerImport = 4000

    /// A fresh household of 16 members with no drinks, each importing their whole cap at once.
    private static func importEverything(
        into data: String, read: (String, Spawned) -> Void, record: (String, Double) -> Void
    ) throws {
        let members = AccountBook.maximumMembers
        try addMembers(data).0.close()
        let (server, address) = try ServerBenchmark.startWater(data, options: ["--idle-sweep", "2"])
        defer { server.stop() }
        read("rss_anon_mib_imports_start", server)
        let histories = (0..<members).map { member in
            (0..<drinksPerMember).map { drink in
                let entry = entry(member, drink)
                return WaterV1.WaterEntry(
                    entryID: entry.id.description, amountMl: entry.amountMillilitres, atUnixMs: entry.unixMilliseconds)
            }
        }
        var configuration = ClientConfiguration(server: address, security: .plaintext)
        configuration.replyTimeoutMilliseconds = 600_000
        let peak = Locked(0.0)
        let done = Locked(false)
        let failures = Locked<[String]>([])
        let pid = server.pid
        let sampler = Thread {
            while !done.withLock({ $0 }) {
                let mebibytes = ServerBenchmark.statusMiB("RssAnon:", of: pid)
                peak.withLock { $0 = max($0, mebibytes) }
                usleep(100_000)
            }
        }
        sampler.start()
        // Each thread logs in, then waits for all 16 to have: the clock starts at the first Import.
        let (ready, go, group) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchGroup())
        for (member, history) in histories.enumerated() {
            group.enter()
            Thread { [configuration] in
                defer { group.leave() }
                do {
                    let client: WaterClient
                    do {
                        defer { ready.signal() }
                        client = try WaterClient(configuration: configuration)
                        try client.login(
                            username: member == 0 ? "admin" : "m\(member + 1)", password: ServerBenchmark.password)
                    }
                    go.wait()
                    for chunk in stride(from: 0, to: history.count, by: entriesPerImport) {
                        let part = Array(history[chunk..<min(chunk + entriesPerImport, history.count)])
                        let added = try client.call(
                            WaterV1.ImportRequest(history: WaterV1.MemberHistory(entries: part)))
                        guard added.entriesAdded == part.count else {
                            throw WaterBenchError("an import added \(added.entriesAdded) of \(part.count) entries")
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        for _ in 0..<members { ready.wait() }
        let start = Measure.now()
        for _ in 0..<members { go.signal() }
        group.wait()
        let seconds = Double(Measure.now() - start) / 1e9
        let after = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
        done.withLock { $0 = true }
        if let failure = failures.withLock({ $0.first }) { throw WaterBenchError("an import failed: \(failure)") }
        peak.withLock { $0 = max($0, after) }
        record("rss_anon_mib_import_peak", peak.withLock { $0 })
        read("rss_anon_mib_after_imports", server)
        record("imports_seconds", seconds)
        // The status file is written every 5 s: one written after the imports, then no member's
        // archive loaded (the accounts' and the household's always are).
        usleep(5_500_000)
        guard waitForStatus(data, "archives_loaded", atMost: 2) else {
            throw WaterBenchError("the idle sweep did not drop the \(members) archives within 60 s")
        }
        read("rss_anon_mib_after_imports_swept", server)
    }

    /// Waits (60 s at most) until the server's status file says `field` is at least `value`.
    private static func waitForStatus(_ data: String, _ field: String, atLeast value: Int) -> Bool {
        waitForStatus(data, field) { $0 >= value }
    }

    /// Waits (60 s at most) until the server's status file says `field` is at most `value`.
    private static func waitForStatus(_ data: String, _ field: String, atMost value: Int) -> Bool {
        waitForStatus(data, field) { $0 <= value }
    }

    private static func waitForStatus(_ data: String, _ field: String, _ holds: (Int) -> Bool) -> Bool {
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: "\(data)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix(field + " ") }
            if let count = line.flatMap({ Int($0.dropFirst(field.count + 1)) }), holds(count) { return true }
            usleep(100_000)
        }
        return false
    }

    /// Drink `drink` (from 0) of member `member` (from 0, the admin): 27 a day from 2001-01-01.
    static func entry(_ member: Int, _ drink: Int) -> WaterEntry {
        WaterEntry(
            id: RecordID(high: UInt64(member + 1), low: UInt64(drink + 1)),
            amountMillilitres: 250,
            unixMilliseconds: BenchDrinks.firstDay + Int64(drink / drinksPerDay) * 86_400_000
                + 6 * 3_600_000 + Int64(drink % drinksPerDay) * 1_800_000)
    }

    /// The admin and 15 more members, each with 100 000 drinks, every archive snapshotted.
    static func fill(_ data: String) throws {
        let (store, archives) = try addMembers(data)
        defer { store.close() }
        for (member, archive) in archives.enumerated() {
            for chunk in stride(from: 0, to: drinksPerMember, by: 5000) {
                try archive.commitAndWait { _ in
                    (chunk..<chunk + 5000).map { drink in .water(.logged(entry(member, drink))) }
                }
            }
            archive.compact()
            store.flush()
        }
    }

    /// The admin and 15 more members (`m2` to `m16`) with no drinks; the store left open.
    static func addMembers(_ data: String) throws -> (FileArchiveStore, [Archive<MemberArchive>]) {
        let admin = try AdminCommands.initialize(
            dataDirectory: data, admin: "admin", password: ServerBenchmark.password, timeZone: .utc,
            strength: .minimum, logger: .silent)
        let store = try FileArchiveStore(
            path: data, options: StoreOptions(timeZones: ZoneInfo.system), owner: "water-bench")
        let hash = PasswordHasher(strength: .minimum).hashNow(ServerBenchmark.password)!
        var archives = [try require(store.member(admin.id), "the admin's archive")]
        for n in 2...AccountBook.maximumMembers {
            archives.append(try ServerBenchmark.addMember("m\(n)", to: store, hash: hash))
        }
        return (store, archives)
    }
}
