import Glibc
import WaterSync

/// The IANA time zone a member's days belong to, and the conversion from instants to days.
///
/// A day is whatever the zone's wall clock calls that date, so the days of daylight-saving
/// changes are 23 or 25 hours long and every instant still falls on exactly one day.
public struct MemberTimeZone: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    private let offsets: UTCOffsets

    /// The zone named `identifier` (`"Europe/Berlin"`), or nil when the system's zoneinfo
    /// (Debian's tzdata) does not have it.
    public init?(identifier: String) {
        guard let offsets = UTCOffsets.of(identifier) else { return nil }
        self.identifier = identifier
        self.offsets = offsets
    }

    public static func == (lhs: MemberTimeZone, rhs: MemberTimeZone) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    /// This machine's zone: `$TZ`, else /etc/timezone, else where /etc/localtime points,
    /// else UTC.
    public static var system: MemberTimeZone {
        var candidates: [String] = []
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            candidates.append(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz)
        }
        if let file = fopen("/etc/timezone", "r") {
            var buffer = [CChar](repeating: 0, count: 128)
            if fgets(&buffer, 128, file) != nil {
                candidates.append(
                    String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                )
            }
            fclose(file)
        }
        var link = [CChar](repeating: 0, count: 256)
        let length = readlink("/etc/localtime", &link, 255)
        if length > 0 {
            let target = String(decoding: link.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = target.split(separator: "/", omittingEmptySubsequences: true)
            if let index = parts.firstIndex(of: "zoneinfo") {
                candidates.append(parts[(index + 1)...].joined(separator: "/"))
            }
        }
        return candidates.lazy.compactMap(MemberTimeZone.init(identifier:)).first ?? .utc
    }

    /// Seconds east of UTC at `unixSeconds`.
    public func offsetSeconds(atUnixSeconds unixSeconds: Int64) -> Int64 {
        offsets.offset(atUnixSeconds: unixSeconds)
    }

    /// UTC, which needs no zone file.
    public static let utc = MemberTimeZone(identifier: "UTC")!

    /// The local date at `unixMilliseconds`.
    public func date(atUnixMilliseconds unixMilliseconds: Int64) -> LocalDate {
        let seconds = floorDivide(unixMilliseconds, 1000)
        return LocalDate(daysSinceEpoch: Int(floorDivide(seconds + offsetSeconds(atUnixSeconds: seconds), 86_400)))
    }

    /// The instant the local wall clock shows `hour`:`minute` on `date`. In a gap (the hour
    /// skipped when clocks go forward) it is the instant after the gap; when the hour repeats,
    /// the first of the two.
    public func unixMilliseconds(of date: LocalDate, hour: Int, minute: Int) -> Int64 {
        let local = Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60)
        // The offsets in force within a day either side; a local time matches an instant when
        // the offset at that instant is the one assumed.
        let candidates = Set([local - 86_400, local, local + 86_400].map { offsetSeconds(atUnixSeconds: $0) })
        let matches = candidates.map { local - $0 }.filter { offsetSeconds(atUnixSeconds: $0) == local - $0 }
        if let first = matches.min() { return first * 1000 }
        // In a gap: the wall clock jumps past this time; take the instant after the jump.
        let before = offsetSeconds(atUnixSeconds: local - 86_400)
        return (local - before) * 1000
    }

    public var description: String { identifier }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

/// A zone's UTC offsets as a table of transitions, read once per zone from its TZif file:
/// finding a day is a binary search.
private final class UTCOffsets: Sendable {
    /// Transition instants (Unix seconds), ascending, and the offset from each on.
    private let instants: [Int64]
    private let offsets: [Int64]
    private let initialOffset: Int64

    static func of(_ identifier: String) -> UTCOffsets? {
        if let cached = utcOffsetsCache.withLock({ $0[identifier] }) { return cached }
        let table: UTCOffsets
        if identifier == "UTC" {
            table = UTCOffsets(initialOffset: 0, instants: [], offsets: [])
        } else {
            guard let loaded = TZif.load(identifier) else { return nil }
            table = UTCOffsets(initialOffset: loaded.initialOffset, instants: loaded.instants, offsets: loaded.offsets)
        }
        utcOffsetsCache.withLock { $0[identifier] = table }
        return table
    }

    private init(initialOffset: Int64, instants: [Int64], offsets: [Int64]) {
        self.initialOffset = initialOffset
        self.instants = instants
        self.offsets = offsets
    }

    /// The offset at `unixSeconds`; past the last transition (2037 in most zone files) the
    /// last offset stays in force.
    func offset(atUnixSeconds unixSeconds: Int64) -> Int64 {
        var low = 0
        var high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle] <= unixSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }
}

/// Tables already read, by zone identifier.
private let utcOffsetsCache = Locked<[String: UTCOffsets]>([:])
