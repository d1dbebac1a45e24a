import WaterCore

/// Reads `todo add --due` values into what the API takes (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`):
/// `today`, `tomorrow`, a weekday (`mon`: the next one, today if it is one), `2026-12-07` or
/// `2026-12-07T18:00`, each maybe followed by a time (`fri 18:00`). Days are the household's
/// (`zone`, the server's calendar the board uses).
public enum DueWhen {
    public static func parse(_ text: String, now: Int64, zone: MemberTimeZone) -> String? {
        let words = text.lowercased().split(separator: " ").map(String.init)
        guard (1...2).contains(words.count) else { return nil }
        if words.count == 1, words[0].contains("T") || words[0].contains("t") {
            let halves = words[0].split(separator: "t", maxSplits: 1).map(String.init)
            guard halves.count == 2, let day = LocalDate(halves[0]), let time = clock(halves[1]) else { return nil }
            return "\(day)T\(time)"
        }
        let today = zone.date(atUnixMilliseconds: now)
        let day: LocalDate?
        switch words[0] {
        case "today": day = today
        case "tomorrow": day = today.adding(days: 1)
        default:
            if let weekday = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].firstIndex(where: {
                words[0].hasPrefix($0) && "monday tuesday wednesday thursday friday saturday sunday".contains(words[0])
            }) {
                day = today.adding(days: (weekday + 1 - today.isoWeekday + 7) % 7)
            } else {
                day = LocalDate(words[0])
            }
        }
        guard let day else { return nil }
        guard words.count == 2 else { return day.description }
        return clock(words[1]).map { "\(day)T\($0)" }
    }

    /// `H:MM` or `HH:MM` as `HH:MM`.
    private static func clock(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return "\(hour < 10 ? "0" : "")\(hour):\(parts[1])"
    }
}
