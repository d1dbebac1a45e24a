/// The IANA time zone a member's days belong to, and the conversion from instants to days.
///
/// A day is whatever the zone's wall clock calls that date, so the days of daylight-saving
/// changes are 23 or 25 hours long and every instant still falls on exactly one day.
public struct MemberTimeZone: Hashable, Sendable, CustomStringConvertible {
    public let identifier: String
    private let offsets: UTCOffsetTable

    /// The zone `identifier` with its offsets, as a ``TimeZoneSource`` found them.
    public init(identifier: String, offsets: UTCOffsetTable) {
        self.identifier = identifier
        self.offsets = offsets
    }

    public static func == (lhs: MemberTimeZone, rhs: MemberTimeZone) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }

    /// Seconds east of UTC at `unixSeconds`.
    public func offsetSeconds(atUnixSeconds unixSeconds: Int64) -> Int64 {
        offsets.offset(atUnixSeconds: unixSeconds)
    }

    /// UTC, which needs no zone file.
    public static let utc = MemberTimeZone(
        identifier: "UTC", offsets: UTCOffsetTable(initialOffset: 0, instants: [], offsets: []))

    /// The local date at `unixMilliseconds`.
    public func date(atUnixMilliseconds unixMilliseconds: Int64) -> LocalDate {
        let seconds = floorDivide(unixMilliseconds, 1000)
        return LocalDate(daysSinceEpoch: Int(floorDivide(seconds + offsetSeconds(atUnixSeconds: seconds), 86_400)))
    }

    /// The minute of the local day at `unixMilliseconds` (0 at midnight, 1439 at 23:59).
    public func minuteOfDay(atUnixMilliseconds unixMilliseconds: Int64) -> Int {
        let seconds = floorDivide(unixMilliseconds, 1000)
        let local = seconds + offsetSeconds(atUnixSeconds: seconds)
        return Int(local - floorDivide(local, 86_400) * 86_400) / 60
    }

    /// `HH:MM` on the local wall clock at `unixMilliseconds`: the one way times are written for
    /// people, by the client and in the server's messages.
    public func clock(atUnixMilliseconds unixMilliseconds: Int64) -> String {
        let minute = minuteOfDay(atUnixMilliseconds: unixMilliseconds)
        return "\(minute / 600)\(minute / 60 % 10):\(minute % 60 / 10)\(minute % 10)"
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

/// A zone's UTC offsets as a table of transitions: finding a day is a binary search. Shared
/// by every value of the zone (a class: one table per zone, however many members use it).
public final class UTCOffsetTable: Sendable {
    /// Transition instants (Unix seconds), ascending, and the offset from each on.
    private let instants: [Int64]
    private let offsets: [Int64]
    private let initialOffset: Int64

    /// - Parameters:
    ///   - initialOffset: the offset before the first transition.
    ///   - instants: the transitions, ascending; `offsets` holds the offset from each on.
    public init(initialOffset: Int64, instants: [Int64], offsets: [Int64]) {
        precondition(instants.count == offsets.count, "one offset per transition")
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

/// Where the domain's zones come from. The domain never reads zone files: it is handed a
/// source (the system's zoneinfo in the programs, `WaterZoneInfo.ZoneInfo`), or zones made
/// from one.
public protocol TimeZoneSource: Sendable {
    /// The zone named `identifier` (`"Europe/Berlin"`), or nil when the source has no such zone.
    func zone(named identifier: String) -> MemberTimeZone?
}
