import Foundation

/// The IANA time zone a member's days belong to, and the conversion from instants to days.
///
/// A day is whatever the zone's wall clock calls that date, so the days of daylight-saving
/// changes are 23 or 25 hours long and every instant still falls on exactly one day.
public struct MemberTimeZone: Hashable, Sendable, CustomStringConvertible {
    private let zone: TimeZone

    /// The zone named `identifier` (`"Europe/Berlin"`), or nil when the system does not know it.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.zone = zone
    }

    public static let utc = MemberTimeZone(identifier: "UTC")!

    public var identifier: String { zone.identifier }

    /// The local date at `unixMilliseconds`.
    public func date(atUnixMilliseconds unixMilliseconds: Int64) -> LocalDate {
        let seconds = floorDivide(unixMilliseconds, 1000)
        let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
        return LocalDate(daysSinceEpoch: Int(floorDivide(seconds + offset, 86_400)))
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
