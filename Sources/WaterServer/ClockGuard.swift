import Dispatch
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterSync
import WaterSystem

/// Whether the server's clock can be trusted with a write.
///
/// A Raspberry Pi has no real-time clock: after a power cut it boots at 1970, or at the time it
/// last saved, until the network sets it, and every drink logged meanwhile would land on the
/// wrong day. The clock is *behind* when it is earlier, by more than the skew a client is
/// allowed, than a moment it has certainly passed: the newest write this data directory holds
/// (kept in `DATA/newest-write`), or the release's build time. While behind, reads are served
/// and writes are refused with UNAVAILABLE; writes resume by themselves once the clock is right.
///
/// Owner: every piece of mutable state is in ``state``, under its lock: the loop's writes and
/// the status timer both come here. The file is written on ``queue``, one write at a time.
final class ClockGuard: Sendable {
    /// A moment the clock has certainly passed, and why it is known.
    struct Reference: Equatable, Sendable {
        enum Source: String, Sendable {
            case newestRecord = "newest record"
            case buildTime = "build time"
        }

        let unixMilliseconds: Int64
        let source: Source
    }

    /// What the server's clock says against the reference, for the log and `status`.
    struct Reading: Equatable, Sendable {
        let now: Int64
        let reference: Reference?

        /// Behind: earlier than the reference by more than the allowed skew.
        var isBehind: Bool {
            reference.map { now + WaterDiary.allowedClockSkewMilliseconds < $0.unixMilliseconds } ?? false
        }
    }

    /// The file that keeps the newest write across restarts.
    static let fileName = "newest-write"
    /// How far the newest write may run ahead of the file: the file is rewritten at most once a
    /// minute under load, and a crash loses at most a minute of it (less than a clock that
    /// booted at the last saved time is usually behind).
    static let persistInterval: Int64 = 60_000

    private struct State {
        /// The server's clock at the newest write it accepted.
        var newestWrite: Int64
        /// What the file holds (or is being written to hold).
        var persisted: Int64
        /// Whether the clock was behind when last looked at: a change is logged once.
        var wasBehind = false
    }

    private let state: Locked<State>
    private let now: @Sendable () -> Int64
    private let buildTime: Int64?
    private let path: String
    private let zone: MemberTimeZone
    private let logger: Logger
    private let queue = DispatchQueue(label: "water.clock", qos: .utility)

    /// - Parameters:
    ///   - buildTime: when this release was built; nil when `--clock` states the time outright.
    ///   - dataDirectory: where the newest write is kept.
    ///   - zone: the household's, for the times a refusal names.
    init(
        now: @escaping @Sendable () -> Int64, buildTime: Int64?, dataDirectory: String, zone: MemberTimeZone,
        logger: Logger
    ) {
        self.now = now
        self.buildTime = buildTime
        self.path = "\(dataDirectory)/\(Self.fileName)"
        self.zone = zone
        self.logger = logger
        let stored = Self.read(path)
        state = Locked(State(newestWrite: stored, persisted: stored))
    }

    /// What the clock says now against what it must have passed.
    func reading() -> Reading {
        let now = self.now()
        let newest = state.withLock { $0.newestWrite }
        return Reading(now: now, reference: Self.reference(newestWrite: newest, buildTime: buildTime))
    }

    /// The later of the two moments the clock must have passed; nil when neither is known.
    static func reference(newestWrite: Int64, buildTime: Int64?) -> Reference? {
        let record = newestWrite > 0 ? Reference(unixMilliseconds: newestWrite, source: .newestRecord) : nil
        let build = buildTime.map { Reference(unixMilliseconds: $0, source: .buildTime) }
        switch (record, build) {
        case let (record?, build?): return record.unixMilliseconds >= build.unixMilliseconds ? record : build
        case let (record, build): return record ?? build
        }
    }

    /// Admits a write made now, or refuses it while the clock is behind. An admitted write's
    /// moment becomes the newest write; the file follows at most once a minute, off the caller.
    func admitWrite() throws(WaterError) {
        let now = self.now()
        let buildTime = self.buildTime
        let (reading, changed, persist) = state.withLock { state -> (Reading, Bool, Int64?) in
            let reading = Reading(
                now: now, reference: Self.reference(newestWrite: state.newestWrite, buildTime: buildTime))
            let changed = reading.isBehind != state.wasBehind
            state.wasBehind = reading.isBehind
            guard !reading.isBehind else { return (reading, changed, nil) }
            state.newestWrite = max(state.newestWrite, now)
            guard state.newestWrite - state.persisted >= Self.persistInterval else { return (reading, changed, nil) }
            state.persisted = state.newestWrite
            return (reading, changed, state.newestWrite)
        }
        if changed { log(reading) }
        if let persist { queue.async { [self] in write(persist) } }
        if reading.isBehind { throw WaterError(.unavailable, refusal(reading)) }
    }

    /// Logs a change of the clock's state since it was last looked at (the status timer calls
    /// this every few seconds, so a clock set while nobody writes is noticed), and at start.
    func check(atStart: Bool = false) {
        let reading = reading()
        let changed = state.withLock { state in
            defer { state.wasBehind = reading.isBehind }
            return reading.isBehind != state.wasBehind
        }
        if changed || (atStart && reading.isBehind) { log(reading) }
    }

    /// Writes the newest write to the file now, if it ran ahead: at a clean stop, so a restart
    /// knows the last minute too.
    func flush() {
        let newest = state.withLock { state -> Int64? in
            guard state.newestWrite > state.persisted else { return nil }
            state.persisted = state.newestWrite
            return state.newestWrite
        }
        queue.sync { if let newest { write(newest) } }
    }

    /// One sentence for a refused write.
    func refusal(_ reading: Reading) -> String {
        "the server's clock is behind (\(explanation(reading))); waiting for the time to be set"
    }

    /// "it says 1970-01-01 00:02, the newest record is 2026-12-01 07:40", in the household's zone.
    func explanation(_ reading: Reading) -> String {
        let says = "it says \(Self.moment(reading.now, zone: zone))"
        guard let reference = reading.reference else { return says }
        let moment = Self.moment(reference.unixMilliseconds, zone: zone)
        switch reference.source {
        case .newestRecord: return "\(says), the newest record is \(moment)"
        case .buildTime: return "\(says), this release was built \(moment)"
        }
    }

    private func log(_ reading: Reading) {
        if reading.isBehind {
            logger.error(
                "clock behind: writes refused until the time is set",
                ["clock": explanation(reading), "skew.allowed_ms": "\(WaterDiary.allowedClockSkewMilliseconds)"])
        } else {
            logger.info("clock set: writes accepted again", ["clock": Self.moment(reading.now, zone: zone)])
        }
    }

    /// `YYYY-MM-DD HH:MM` in `zone`.
    static func moment(_ unixMilliseconds: Int64, zone: MemberTimeZone) -> String {
        "\(zone.date(atUnixMilliseconds: unixMilliseconds)) \(zone.clock(atUnixMilliseconds: unixMilliseconds))"
    }

    private func write(_ newest: Int64) {
        do {
            try PosixFileSystem().replaceFile(path, with: Array("\(newest)\n".utf8), mode: 0o600)
        } catch {
            logger.warning("newest write not kept", ["file": path, "why": "\(error)"])
        }
    }

    /// The newest write the file holds; 0 when there is none (a directory older than the file,
    /// or a file a crash left unreadable: then only the build time counts).
    private static func read(_ path: String) -> Int64 {
        guard let bytes = try? PosixFileSystem().readFile(path, limit: 64),
            let value = Int64(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }), value > 0
        else { return 0 }
        return value
    }
}

/// When this release was built, which `water-server` reads from the compiler and hands the
/// server (``ServerConfiguration/buildTimeUnixMilliseconds``).
public enum BuildTime {
    /// The build time from the compiler's `__DATE__` ("Dec  1 2026") and `__TIME__`
    /// ("14:30:05"), less a day: they are in the building machine's zone, which is not known,
    /// and the result must be a moment the clock has certainly passed. Nil when they do not read.
    public static func unixMilliseconds(date: String, time: String) -> Int64? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = date.split(separator: " ")
        let clock = time.split(separator: ":")
        guard day.count == 3, clock.count == 3, let month = months.firstIndex(of: String(day[0])),
            let dayOfMonth = Int(day[1]), let year = Int(day[2]),
            let local = LocalDate(year: year, month: month + 1, day: dayOfMonth),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0..<24).contains(hour), (0..<60).contains(minute), (0..<61).contains(second)
        else { return nil }
        let seconds = Int64(local.daysSinceEpoch - 1) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1000
    }
}
