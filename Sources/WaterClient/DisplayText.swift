import WaterCore

/// The few pieces of text every client shows the same way: short ids, clock times, day names.
/// Not neutralised for a terminal: a caller printing a server's text there does that.
public enum DisplayText {
    /// The 5th to 12th hex digits of an id: for the client's time-ordered ids, the low bits of
    /// the millisecond it was made, which tell a day's entries apart (the first digits are
    /// the same for weeks, the last ones for every entry of an installation).
    public static func shortID(_ id: String) -> String {
        String(id.filter { $0 != "-" }.dropFirst(4).prefix(8))
    }

    /// HH:MM in `zone`.
    public static func clock(_ unixMilliseconds: Int64, zone: MemberTimeZone) -> String {
        zone.clock(atUnixMilliseconds: unixMilliseconds)
    }

    /// "Mon 2026-11-30"; nil when `date` is not a date.
    public static func dayName(_ date: String) -> String? {
        guard let day = LocalDate(date) else { return nil }
        return "\(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][day.isoWeekday - 1]) \(date)"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
