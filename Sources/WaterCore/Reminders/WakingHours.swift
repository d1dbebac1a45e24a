/// The hours of a member's day in which they may be reminded, as minutes of the day in their
/// own time zone: from `start` (inclusive) to `end` (exclusive). An end before the start crosses
/// midnight (22:00-06:00, a night shift); outside is quiet.
public struct WakingHours: Hashable, Sendable, CustomStringConvertible {
    public var start: Int
    public var end: Int

    /// 08:00-22:00.
    public static let standard = WakingHours(start: 8 * 60, end: 22 * 60)!

    /// Nil unless both are minutes of a day (the end may be 24:00) and they differ.
    public init?(start: Int, end: Int) {
        guard (0..<24 * 60).contains(start), (0...24 * 60).contains(end), start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// "07:30-21:30"; "22:00-06:00" crosses midnight.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map {
            $0.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        }
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }),
            let startHour = parts[0][0], let startMinute = parts[0][1], let endHour = parts[1][0],
            let endMinute = parts[1][1], (0..<60).contains(startMinute), (0..<60).contains(endMinute)
        else { return nil }
        self.init(start: startHour * 60 + startMinute, end: endHour * 60 + endMinute)
    }

    public var description: String { Self.clock(start) + "-" + Self.clock(end) }

    /// `HH:MM` for a minute of the day.
    public static func clock(_ minute: Int) -> String {
        "\(minute / 600)\(minute / 60 % 10):\(minute % 60 / 10)\(minute % 10)"
    }

    /// How far into the hours `minute` is, and how long they are; nil outside them.
    public func progress(at minute: Int) -> (elapsed: Int, length: Int)? {
        let day = 24 * 60
        let length = (end - start + day) % day
        let elapsed = (minute - start + day) % day
        let whole = length == 0 ? day : length
        return elapsed < whole ? (elapsed, whole) : nil
    }

    /// What the day's goal calls for by `minute`, when the member is behind it by at least half
    /// a cup (a drink just missed is no reason to interrupt): nil when on pace, when the goal is
    /// met or excused, or outside the hours.
    public func behind(_ day: WaterDay, minute: Int, usualCupMillilitres: Int32) -> Int? {
        guard !day.isExcused else { return nil }
        return behind(
            amountMillilitres: Int(day.amountMillilitres), goalMillilitres: Int(day.goalMillilitres),
            minute: minute, usualCupMillilitres: Int(usualCupMillilitres))
    }

    /// The same from the figures alone (a day as a client knows it).
    public func behind(amountMillilitres: Int, goalMillilitres: Int, minute: Int, usualCupMillilitres: Int) -> Int? {
        guard amountMillilitres < goalMillilitres, let (elapsed, length) = progress(at: minute) else { return nil }
        let expected = goalMillilitres * elapsed / length
        let slack = max(usualCupMillilitres / 2, 100)
        return expected - amountMillilitres >= slack ? expected : nil
    }
}
