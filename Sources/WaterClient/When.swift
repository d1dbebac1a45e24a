import WaterCore

/// Reads `--at` values: `21:30` (today), `yesterday 21:30`, `2026-11-30 21:30` or ISO 8601
/// (`2026-11-30T21:30`, with seconds and an offset or `Z` if wanted); local times are this
/// terminal's time zone.
public enum When {
    public static func parse(_ text: String, now: Int64, zone: MemberTimeZone) -> Int64? {
        let words = text.split(separator: " ").map(String.init)
        let today = zone.date(atUnixMilliseconds: now)
        switch words.count {
        case 1 where words[0].contains("T"):
            return iso8601(words[0], zone: zone)
        case 1:
            return clock(words[0]).map { zone.unixMilliseconds(of: today, hour: $0.0, minute: $0.1) }
        case 2:
            let date: LocalDate? =
                switch words[0] {
                case "today": today
                case "yesterday": today.adding(days: -1)
                default: LocalDate(words[0])
                }
            guard let date, let (hour, minute) = clock(words[1]) else { return nil }
            return zone.unixMilliseconds(of: date, hour: hour, minute: minute)
        default:
            return nil
        }
    }

    private static func clock(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2 || parts.count == 3, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    /// `2026-11-30T21:30[:SS][Z|+HH:MM]`.
    private static func iso8601(_ text: String, zone: MemberTimeZone) -> Int64? {
        let halves = text.split(separator: "T", maxSplits: 1).map(String.init)
        guard halves.count == 2, let date = LocalDate(halves[0]) else { return nil }
        var time = halves[1]
        var offsetSeconds: Int64?
        if time.hasSuffix("Z") {
            time.removeLast()
            offsetSeconds = 0
        } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offset = time[time.index(after: sign)...].split(separator: ":")
            guard offset.count == 2, let hours = Int64(offset[0]), let minutes = Int64(offset[1]) else { return nil }
            offsetSeconds = (time[sign] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            time = String(time[..<sign])
        }
        let parts = time.split(separator: ":")
        guard parts.count >= 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour),
            (0...59).contains(minute)
        else { return nil }
        let second = parts.count == 3 ? Int64(parts[2]) ?? 0 : 0
        if let offsetSeconds {
            return (Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60) + second - offsetSeconds)
                * 1000
        }
        return zone.unixMilliseconds(of: date, hour: hour, minute: minute) + second * 1000
    }

    /// `--week`: `last`, or `YYYY-Www`. Returns the week as the API takes it (empty: the
    /// current one), or nil when the text is neither. `last` is the week before the one the
    /// server calls current, which `current` asks it for: the board's week is the household's,
    /// whatever zone this member or terminal is in (on Sunday evening in New York, the week that
    /// just ended in Europe is "last", not the one before it).
    public static func week<Failure>(_ text: String?, current: () throws(Failure) -> String) throws(Failure)
        -> String?
    {
        switch text {
        case nil: return ""
        case "last": return ISOWeek(try current())?.previous.description
        case let text?: return ISOWeek(text).map { _ in text }
        }
    }

    /// `--day`: `today`, `yesterday` or `YYYY-MM-DD`. Returns the date as the API takes it
    /// (empty: the server's today), or nil when the text is none of those.
    public static func day(_ text: String?, now: Int64, zone: MemberTimeZone) -> String? {
        switch text {
        case nil, "today": return ""
        case "yesterday": return zone.date(atUnixMilliseconds: now).adding(days: -1).description
        case let text?: return LocalDate(text).map { _ in text }
        }
    }
}
