import Foundation
import Glibc
import WaterCore
import WaterServer
import WaterStore
import WaterTransport

/// `water-bench ceiling`: the memory the server holds for a household at its caps (issue 30
/// item 2). 16 members (the household's cap) each hold 100 000 drinks (the cap in all: 27 a
/// day from 2001-01-01, under 10 000 a calendar year), written straight into the store. The
/// release water-server is started on them with a sweep every 2 seconds, and its RssAnon read:
/// at the start, with every archive loaded (a board reads each), once the sweep has dropped them
/// all, and after a restart with every archive loaded again.
enum CeilingBenchmark {
    static let drinksPerMember = 100_000
    static let drinksPerDay = 27

    /// Runs it in a scratch directory under `directory`; returns the figures, printed as read.
    static func run(directory: String) throws -> [(key: String, value: Double)] {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        try fill(data)
        var readings: [(key: String, value: Double)] = []
        func read(_ key: String, of server: Spawned) {
            let mebibytes = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
            readings.append((key, mebibytes))
            FileHandle.standardError.write(Data("  \(key) = \((mebibytes * 100).rounded() / 100)\n".utf8))
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
        return readings
    }

    /// Waits (60 s at most) until the server's status file says `field` is at least `value`.
    private static func waitForStatus(_ data: String, _ field: String, atLeast value: Int) -> Bool {
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: "\(data)/status", encoding: .utf8)) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix(field + " ") }
            if let count = line.flatMap({ Int($0.dropFirst(field.count + 1)) }), count >= value { return true }
            usleep(100_000)
        }
        return false
    }

    /// The admin and 15 more members, each with 100 000 drinks, every archive snapshotted.
    static func fill(_ data: String) throws {
        let admin = try AdminCommands.initialize(
            dataDirectory: data, admin: "admin", password: ServerBenchmark.password, timeZone: .utc,
            strength: .minimum, logger: .silent)
        let store = try FileArchiveStore(path: data, owner: "water-bench")
        defer { store.close() }
        let hash = PasswordHasher(strength: .minimum).hashNow(ServerBenchmark.password)!
        var archives = [try require(store.member(admin.id), "the admin's archive")]
        for n in 2...AccountBook.maximumMembers {
            archives.append(try ServerBenchmark.addMember("m\(n)", to: store, hash: hash))
        }
        for (member, archive) in archives.enumerated() {
            for chunk in stride(from: 0, to: drinksPerMember, by: 5000) {
                try archive.commitAndWait { _ in
                    (chunk..<chunk + 5000).map { drink in
                        .water(
                            .logged(
                                WaterEntry(
                                    id: RecordID(high: UInt64(member + 1), low: UInt64(drink + 1)),
                                    amountMillilitres: 250,
                                    unixMilliseconds: BenchDrinks.firstDay + Int64(drink / drinksPerDay) * 86_400_000
                                        + 6 * 3_600_000 + Int64(drink % drinksPerDay) * 1_800_000)))
                    }
                }
            }
            archive.compact()
            store.flush()
        }
    }
}
