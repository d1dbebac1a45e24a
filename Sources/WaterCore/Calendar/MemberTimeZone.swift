import Foundation
import Synchronization

/// The IANA time zone a member's days belong to, and the conversion from instants to days.
///
/// A day is whatever the zone's wall clock calls that date, so the days of daylight-saving
/// changes are 23 or 25 hours long and every instant still falls on exactly one day.
public struct MemberTimeZone: Hashable, Sendable, CustomStringConvertible {
    private let zone: TimeZone
    private let offsets: UTCOffsets

    /// The zone named `identifier` (`"Europe/Berlin"`), or nil when the system does not know it.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.zone = zone
        self.offsets = UTCOffsets.of(zone)
    }

    public static func == (lhs: MemberTimeZone, rhs: MemberTimeZone) -> Bool {
        lhs.zone == rhs.zone
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(zone)
    }

    /// Seconds east of UTC at `unixSeconds`.
    public func offsetSeconds(atUnixSeconds unixSeconds: Int64) -> Int64 {
        offsets.offset(atUnixSeconds: unixSeconds)
            ?? Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(unixSeconds))))
    }

    public static let utc = MemberTimeZone(identifier: "UTC")!

    public var identifier: String { zone.identifier }

    /// The local date at `unixMilliseconds`.
    public func date(atUnixMilliseconds unixMilliseconds: Int64) -> LocalDate {
        let seconds = floorDivide(unixMilliseconds, 1000)
        return LocalDate(daysSinceEpoch: Int(floorDivide(seconds + offsetSeconds(atUnixSeconds: seconds), 86_400)))
    }

    /// The instant the local wall clock shows `hour`:`minute` on `date`. In a gap (the hour
    /// skipped when clocks go forward) it is the instant after the gap; when the hour repeats,
    /// the first of the two.
    public func unixMilliseconds(of date: LocalDate, hour: Int, minute: Int) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let (year, month, day) = date.components
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        let instant = calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        return Int64((instant.timeIntervalSince1970 * 1000).rounded())
    }

    public var description: String { identifier }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

/// A zone's UTC offsets from 1970 to 2100 as a table of transitions, built once per zone:
/// finding a day is then a binary search instead of a call into the time zone database, which
/// matters when loading years of entries.
private final class UTCOffsets: Sendable {
    private static let end: Int64 = 4_102_444_800  // 2100-01-01

    /// Transition instants (Unix seconds), ascending, and the offset from each on.
    private let instants: [Int64]
    private let offsets: [Int64]
    private let initialOffset: Int64

    static func of(_ zone: TimeZone) -> UTCOffsets {
        if let cached = utcOffsetsCache.withLock({ $0[zone.identifier] }) { return cached }
        let table = UTCOffsets(zone)
        utcOffsetsCache.withLock { $0[zone.identifier] = table }
        return table
    }

    private init(_ zone: TimeZone) {
        initialOffset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0)))
        var instants: [Int64] = []
        var offsets: [Int64] = []
        var date = Date(timeIntervalSince1970: 0)
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next.timeIntervalSince1970 < Double(Self.end) {
            instants.append(Int64(next.timeIntervalSince1970))
            offsets.append(Int64(zone.secondsFromGMT(for: next)))
            date = next
        }
        self.instants = instants
        self.offsets = offsets
    }

    /// The offset at `unixSeconds`, or nil outside the table's years.
    func offset(atUnixSeconds unixSeconds: Int64) -> Int64? {
        guard unixSeconds >= 0, unixSeconds < Self.end else { return nil }
        var low = 0
        var high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle] <= unixSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }
}

/// Tables already built, by zone identifier.
private let utcOffsetsCache = Mutex<[String: UTCOffsets]>([:])
