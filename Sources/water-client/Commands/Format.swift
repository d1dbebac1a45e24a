import WaterCLI
import WaterCore
import WaterProtocol

/// Human output: bars, colours, times.
enum Format {
    /// A bar of `width` cells for `progress` (0 to 1).
    static func bar(_ progress: Double, width: Int = 20) -> String {
        let filled = Int((min(max(progress, 0), 1) * Double(width)).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return Terminal.usesColour ? (progress >= 1 ? green(bar) : blue(bar)) : bar
    }

    static func blue(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[34m\(text)\u{1B}[0m" : text }
    static func green(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    static func bold(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// "600 / 2000 ml  30 %  1400 ml to go  2 drinks"
    static func daySummary(_ day: WaterV1.DaySummary) -> String {
        let remaining = day.remainingMl > 0 ? "\(day.remainingMl) ml to go" : green("goal met")
        return "\(bar(day.progress)) \(bold("\(day.amountMl)")) / \(day.goalMl) ml  \(day.percent) %  \(remaining)  "
            + "\(day.count) drink\(day.count == 1 ? "" : "s")"
    }

    /// One day as a line of the week or history: date, bar, amount against goal.
    static func dayLine(_ day: WaterV1.DaySummary) -> String {
        let weekday = LocalDate(day.date).map { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][$0.isoWeekday - 1] } ?? "   "
        let mark = day.goalMet ? green("✓") : " "
        return "\(weekday) \(day.date)  \(bar(day.progress, width: 14)) \(pad("\(day.amountMl)", 5)) / \(day.goalMl) ml \(mark)"
    }

    /// An entry as "2ae53626  21:30  +250 ml".
    static func entry(_ entry: WaterV1.WaterEntry, zone: MemberTimeZone) -> String {
        "\(dim(shortID(entry.entryID)))  \(clock(entry.atUnixMs, zone: zone))  +\(entry.amountMl) ml"
    }

    /// The 5th to 12th hex digits of an id: for the client's time-ordered ids, the low bits of
    /// the millisecond it was made, which tell a day's entries apart (the first digits are
    /// the same for weeks, the last ones for every entry of an installation).
    static func shortID(_ id: String) -> String {
        String(id.filter { $0 != "-" }.dropFirst(4).prefix(8))
    }

    /// HH:MM in `zone`.
    static func clock(_ unixMilliseconds: Int64, zone: MemberTimeZone) -> String {
        let seconds = unixMilliseconds / 1000
        let local = seconds + zone.offsetSeconds(atUnixSeconds: seconds)
        let minuteOfDay = ((local % 86_400) + 86_400) % 86_400 / 60
        return pad2(Int(minuteOfDay / 60)) + ":" + pad2(Int(minuteOfDay % 60))
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// Reads `--at` values: `21:30` (today), `yesterday 21:30`, `2026-11-30 21:30` or ISO 8601
/// (`2026-11-30T21:30`, with seconds and an offset or `Z` if wanted); local times are this
/// terminal's time zone.
enum When {
    static func parse(_ text: String, now: Int64, zone: MemberTimeZone) -> Int64? {
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
            return (Int64(date.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60) + second - offsetSeconds) * 1000
        }
        return zone.unixMilliseconds(of: date, hour: hour, minute: minute) + second * 1000
    }
}
