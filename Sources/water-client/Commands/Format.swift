import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// Human output: bars, colours, times.
enum Format {
    /// A bar of `width` cells for `progress` (0 to 1), filled by whole cells reached, as the
    /// percent beside it is: 99 % never draws a full bar. (The epsilon keeps 0.15 × 20, which
    /// is 2.9999… in binary, at 3 cells.)
    static func bar(_ progress: Double, width: Int = 20) -> String {
        let filled = Int((min(max(progress, 0), 1) * Double(width) + 1e-9).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return Terminal.usesColour ? (progress >= 1 ? green(bar) : blue(bar)) : bar
    }

    static func blue(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[34m\(text)\u{1B}[0m" : text }
    static func green(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    static func bold(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { Terminal.usesColour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    /// "Mon 2026-11-30  ████░░ 600 / 2000 ml  30 %  1400 ml to go  2 drinks": every reply about a
    /// day names it (a drink at 00:30 may count on the day before the one the terminal shows);
    /// `named: false` under a heading that already does.
    static func daySummary(_ day: WaterV1.DaySummary, named: Bool = true) -> String {
        // A day the member did not belong to the household has no figures to show.
        if day.excused, Membership.isMembershipReason(day.excusedReason) {
            return (named ? "\(dayName(day.date))  " : "") + dim(day.excusedReason)
        }
        let remaining = day.remainingMl > 0 ? "\(day.remainingMl) ml to go" : green("goal met")
        return (named ? "\(dayName(day.date))  " : "")
            + "\(bar(day.progress)) \(bold("\(day.amountMl)")) / \(day.goalMl) ml  \(day.percent) %  \(remaining)  "
            + "\(day.count) drink\(day.count == 1 ? "" : "s")" + excuse(day)
    }

    /// "  excused (sick)" for an excused day, else nothing.
    static func excuse(_ day: WaterV1.DaySummary) -> String {
        guard day.excused else { return "" }
        return "  " + dim("excused" + (day.excusedReason.isEmpty ? "" : " (\(day.excusedReason.terminalSafe))"))
    }

    /// "streak 4 days, best 12".
    static func streak(_ streak: WaterV1.Streak?) -> String {
        let streak = streak ?? WaterV1.Streak()
        return "streak \(counted(Int(streak.currentDays), "day", "days")), best \(streak.bestDays)"
    }

    /// " --for kim" in a command a hint suggests while acting for kim; "" for oneself.
    static func forHint(_ member: String) -> String {
        member.isEmpty ? "" : " --for \(member.terminalSafe)"
    }

    /// "Mon 2026-11-30" (a date that is not one, as a server sent it, neutralised).
    static func dayName(_ date: String) -> String {
        DisplayText.dayName(date) ?? "    \(date.terminalSafe)"
    }

    /// One day as a line of the week or history: date, bar, amount against goal.
    static func dayLine(_ day: WaterV1.DaySummary) -> String {
        // The mark only where the goal was met: no line ends in a blank.
        let mark = day.goalMet ? " " + green("✓") : ""
        return
            "\(dayName(day.date))  \(bar(day.progress, width: 14)) \(pad("\(day.amountMl)", 5)) / \(day.goalMl) ml\(mark)"
            + excuse(day)
    }

    /// An entry as "2ae53626  21:30  +250 ml water", or "+200 ml milk (counts 300)" where its
    /// factor makes it count otherwise.
    static func entry(_ entry: WaterV1.WaterEntry, zone: MemberTimeZone) -> String {
        "\(dim(shortID(entry.entryID)))  \(clock(entry.atUnixMs, zone: zone))  +\(drink(entry))" + madeBy(entry)
    }

    /// "  by mum" for an entry a guardian or an admin logged for its member; "" otherwise.
    static func madeBy(_ entry: WaterV1.WaterEntry) -> String {
        entry.madeBy.isEmpty ? "" : "  by \(entry.madeBy.terminalSafe)"
    }

    /// "200 ml milk (counts 300)": the amount as drunk, the drink, and what it counted when that
    /// differs. An entry that names no drink (a server from before drinks) is just its amount.
    static func drink(_ entry: WaterV1.WaterEntry) -> String {
        let counts = !entry.drink.isEmpty && entry.countedMl != entry.amountMl ? " (counts \(entry.countedMl))" : ""
        return "\(entry.amountMl) ml" + (entry.drink.isEmpty ? "" : " \(entry.drink.terminalSafe)") + counts
    }

    /// The day's mix: "by drink: water 1000 ml, milk 200 ml (counts 300)", the most drunk first;
    /// nil while the day is all one drink at its amount.
    static func mix(_ entries: [WaterV1.WaterEntry]) -> String? {
        var totals: [String: (raw: Int32, counted: Int32)] = [:]
        for entry in entries where !entry.drink.isEmpty {
            totals[entry.drink, default: (0, 0)].raw += entry.amountMl
            totals[entry.drink, default: (0, 0)].counted += entry.countedMl
        }
        guard totals.count > 1 || totals.values.contains(where: { $0.raw != $0.counted }) else { return nil }
        let parts = totals.sorted { ($1.value.raw, $0.key) < ($0.value.raw, $1.key) }.map { name, total in
            "\(name.terminalSafe) \(total.raw) ml" + (total.counted != total.raw ? " (counts \(total.counted))" : "")
        }
        return "by drink: " + parts.joined(separator: ", ")
    }

    /// "at 08:00 on Mon 2026-11-30", in the member's zone.
    static func when(_ entry: WaterV1.WaterEntry, zone: MemberTimeZone) -> String {
        "at \(clock(entry.atUnixMs, zone: zone)) on \(dayName(entry.date))"
    }

    /// The short id `today` and `history --entries` show (``DisplayText/shortID(_:)``).
    static func shortID(_ id: String) -> String { DisplayText.shortID(id) }

    /// HH:MM in `zone`.
    static func clock(_ unixMilliseconds: Int64, zone: MemberTimeZone) -> String {
        DisplayText.clock(unixMilliseconds, zone: zone)
    }

    /// A habit's icon as an emoji two columns wide (the seed's SF Symbols have no terminal form).
    static func icon(_ icon: WaterV1.HabitIcon) -> String {
        switch icon {
        case .alarm: "⏰"
        case .book: "📖"
        case .pencil: "📝"
        case .desktopcomputer: "💻"
        case .gamecontroller: "🎮"
        case .sportscourt: "🏀"
        case .lightbulb: "💡"
        default: "❔"
        }
    }

    /// "3 min", "2 h", "4 days": how long ago something was heard.
    static func age(_ milliseconds: Int64) -> String {
        let minutes = max(milliseconds, 0) / 60_000
        if minutes < 120 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h" }
        return "\(minutes / 1440) days"
    }

    /// `text` in a column `width` characters wide, left-aligned: cut when longer, spaces after.
    /// `text` in a column of `width` characters: padded, or cut with an ellipsis so that a cut
    /// name never passes for a whole one.
    /// `text` in a column `width` terminal cells wide (emoji and East Asian characters take two),
    /// cut with "…" when longer.
    static func column(_ text: String, _ width: Int) -> String {
        let cut = cut(text, width)
        return cut + String(repeating: " ", count: max(0, width - cut.displayWidth))
    }

    /// `text` in at most `width` columns: cut with "…" when wider.
    static func cut(_ text: String, _ width: Int) -> String {
        text.displayWidth <= width ? text : text.prefix(columns: width - 1) + "…"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// "1 entry", "2 entries": a count and its noun, singular for one.
    static func counted(_ count: some BinaryInteger, _ one: String, _ many: String) -> String {
        "\(count) \(count == 1 ? one : many)"
    }

    static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
