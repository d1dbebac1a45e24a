import Dispatch
import Foundation
import Glibc
import WaterCore
import WaterStore
import WaterTestSupport
import WaterZoneInfo

/// `water-bench storage`: the figures of DESIGN.md section 9 that concern the store, each
/// measured against the machine's own fdatasync in the same run.
struct StorageBenchmark: RecordsFigures {
    let directory: String
    var results: [(key: String, value: Double)] = []

    init(directory: String) {
        self.directory = directory
    }

    mutating func run() throws {
        try appendLatency()
        try manyWriters()
        try costAgainstHistory()
        try bytesPerEntry()
        try loadTime()
    }

    /// A store with the options a household runs with.
    private func openStore(_ path: String) throws -> FileArchiveStore {
        try FileArchiveStore(
            path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "pid \(getpid()) water-bench")
    }

    private func log(_ entry: WaterEntry, to archive: Archive<MemberArchive>) throws {
        try archive.commitAndWait { _ in [.water(.logged(entry))] }
    }

    /// Logs `entries` in commits of `batch`, for building big histories quickly.
    private func bulkLog(_ entries: [WaterEntry], to archive: Archive<MemberArchive>, batch: Int = 2000) throws {
        for start in stride(from: 0, to: entries.count, by: batch) {
            let chunk = entries[start..<min(start + batch, entries.count)]
            try archive.commitAndWait { _ in chunk.map { .water(.logged($0)) } }
        }
    }

    /// One durable append, against one raw 100-byte append + fdatasync at the end of a growing
    /// file, and inside a file already written full length (what a journal segment is), all
    /// interleaved.
    private mutating func appendLatency() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let store = try openStore("\(scratch.path)/data")
        let archive = try store.createMember(1)
        let raw = open("\(scratch.path)/raw", O_RDWR | O_CREAT, 0o600)
        defer { close(raw) }
        let allocated = open("\(scratch.path)/allocated", O_RDWR | O_CREAT, 0o600)
        defer { close(allocated) }
        let zeros = [UInt8](repeating: 0, count: 2000 * 100)
        _ = zeros.withUnsafeBytes { pwrite(allocated, $0.baseAddress, $0.count, 0) }
        fsync(allocated)
        var inPlaceTimes: [Double] = []
        var history = RealisticHistory(seed: 1)
        let entries = history.entries(days: 250)
        var rawTimes: [Double] = []
        var appendTimes: [Double] = []
        let payload = [UInt8](repeating: 0x5A, count: 100)
        for (index, entry) in entries.prefix(2000).enumerated() {
            rawTimes.append(
                Measure.microseconds {
                    _ = payload.withUnsafeBytes { pwrite(raw, $0.baseAddress, 100, off_t(index * 100)) }
                    fdatasync(raw)
                })
            inPlaceTimes.append(
                Measure.microseconds {
                    _ = payload.withUnsafeBytes { pwrite(allocated, $0.baseAddress, 100, off_t(index * 100)) }
                    fdatasync(allocated)
                })
            appendTimes.append(try Measure.microseconds { try log(entry, to: archive) })
        }
        store.close()
        record("fdatasync_p50_us", Measure.median(rawTimes))
        record("fdatasync_in_allocated_file_p50_us", Measure.median(inPlaceTimes))
        record("durable_append_p50_us", Measure.median(appendTimes))
        record("durable_append_p99_us", Measure.percentile(appendTimes, 0.99))
        record("durable_append_vs_fdatasync", Measure.median(appendTimes) / Measure.median(rawTimes))
    }

    /// 64 members logging at once: group commit shares each sync.
    private mutating func manyWriters() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let store = try openStore("\(scratch.path)/data")
        let archives = try (1...64).map { try store.createMember(UInt64($0)) }
        let perWriter = 300
        let start = Measure.now()
        // One thread per writer, as 64 connections' handlers would be blocked on their replies.
        let group = DispatchGroup()
        for archive in archives {
            group.enter()
            Thread {
                var history = RealisticHistory(seed: UInt64(archive.directory.hashValue & 0xFFFF))
                for entry in history.entries(days: 40).prefix(perWriter) {
                    try? archive.commitAndWait { _ in [.water(.logged(entry))] }
                }
                group.leave()
            }.start()
        }
        group.wait()
        let seconds = Double(Measure.now() - start) / 1e9
        let statistics = store.committer.currentStatistics
        store.close()
        record("appends_per_s_64_writers", Double(archives.count * perWriter) / seconds)
        record("appends_per_sync_64_writers", Double(statistics.items) / Double(max(statistics.syncs, 1)))
    }

    /// A durable append to an archive of 100 000 entries against one of 100, interleaved.
    private mutating func costAgainstHistory() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let store = try openStore("\(scratch.path)/data")
        let small = try store.createMember(1)
        let large = try store.createMember(2)
        var history = RealisticHistory(seed: 2)
        let past = history.entries(days: 10_200)  // ~100k entries over 28 years
        try bulkLog(Array(past.prefix(100)), to: small)
        try bulkLog(Array(past.prefix(100_000)), to: large)
        store.flush()
        let next = history.entries(days: 200, startingAt: RealisticHistory.start + 10_300 * 86_400_000)
        var smallTimes: [Double] = []
        var largeTimes: [Double] = []
        for pair in stride(from: 0, to: min(next.count - 1, 3000), by: 2) {
            smallTimes.append(try Measure.microseconds { try log(next[pair], to: small) })
            largeTimes.append(try Measure.microseconds { try log(next[pair + 1], to: large) })
        }
        store.close()
        record("append_p50_us_100_entries", Measure.median(smallTimes))
        record("append_p50_us_100k_entries", Measure.median(largeTimes))
        record("append_cost_ratio_100k_vs_100", Measure.median(largeTimes) / Measure.median(smallTimes))
    }

    /// A realistic year of one member on disk, after compaction, against the seed's JSON.
    private mutating func bytesPerEntry() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let store = try openStore("\(scratch.path)/data")
        let archive = try store.createMember(1)
        var history = RealisticHistory(seed: 3)
        let year = history.entries(days: 365)
        for day in stride(from: 0, to: year.count, by: 10) {  // about a day per commit
            try bulkLog(Array(year[day..<min(day + 10, year.count)]), to: archive)
        }
        archive.compact()
        store.flush()
        store.close()
        let bytes = ScratchDirectory.bytes(under: "\(scratch.path)/data/users/1")
        record("entries_in_year", Double(year.count))
        record("bytes_per_entry", Double(bytes) / Double(year.count))
        record("seed_json_bytes_per_entry", Double(try SeedArchive(year).jsonBytes) / Double(year.count))
    }

    /// Opening a data directory of 10 members with 5 years each.
    private mutating func loadTime() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let path = "\(scratch.path)/data"
        let store = try openStore(path)
        for member in 1...10 {
            var history = RealisticHistory(seed: UInt64(100 + member))
            let archive = try store.createMember(UInt64(member))
            try bulkLog(history.entries(days: 5 * 365), to: archive)
            archive.compact()
        }
        store.flush()
        store.close()
        var times: [Double] = []
        for _ in 0..<5 {
            var opened: FileArchiveStore?
            // Members load when first used: time opening the directory and reading every archive.
            times.append(
                try Measure.microseconds {
                    let store = try openStore(path)
                    for member in store.memberIDs { _ = try store.member(member)?.read { $0.water.entries.count } }
                    opened = store
                } / 1000)
            opened?.close()
        }
        record("load_ms_10_users_5_years", Measure.median(times))
    }
}

/// The seed app's `WaterArchive`, encoded the way the seed saved it (JSONEncoder defaults).
private struct SeedArchive: Encodable {
    struct Entry: Encodable {
        var id: UUID
        var amount: Int
        var date: Date
    }

    var dailyGoal = 2000
    var cupAmount = 250
    var entries: [Entry]
    var dailyGoals: [String: Int]

    init(_ entries: [WaterEntry]) {
        let calendar = Calendar(identifier: .gregorian)
        self.entries = entries.map { entry in
            Entry(
                id: UUID(uuid: Self.uuid(entry.id.bytes)), amount: Int(entry.amountMillilitres),
                date: Date(timeIntervalSince1970: Double(entry.unixMilliseconds) / 1000))
        }
        var goals: [String: Int] = [:]
        for entry in self.entries {
            let parts = calendar.dateComponents([.era, .year, .month, .day], from: entry.date)
            goals["\(parts.era ?? 0)-\(parts.year ?? 0)-\(parts.month ?? 0)-\(parts.day ?? 0)"] = 2000
        }
        self.dailyGoals = goals
    }

    var jsonBytes: Int {
        get throws { try JSONEncoder().encode(self).count }
    }

    private static func uuid(_ b: [UInt8]) -> uuid_t {
        (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }
}
