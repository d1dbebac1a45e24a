import WaterCore
import WaterProtocol

/// The CSV form of an export: one row per entry, daily goal, habit, check-in and excused day
/// (its reason in `name`), one for the usual cup (and drink), one per named cup, one for a
/// privacy other than full, and one for reminders (every how many minutes in `amount_ml`; in
/// `name`, the hours or `-`, then `chores` and `mqtt` when on; never a push URL or token). Read with LF or CRLF line ends (what spreadsheets and Python's csv write).
///
///     kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color,drink,factor,made_by
///     cup,mum,,,,250,,,,,tea,,
///     namedcup,mum,,,,250,,latte,,,milk,,
///     privacy,mum,,,,,,percent,,,,,
///     reminders,mum,,,,60,,08:00-22:00 chores mqtt,,,,,
///     entry,mum,0192e4a0-...,2026-11-30,1796040000000,200,,,,,milk,1.50,
///     entry,kim,0192e4a0-...,2026-11-30,1796040000000,200,,,,,water,1.00,mum
///
/// A file from before drinks has no `drink` and `factor` columns: its entries are water at 1.00.
/// `made_by` (who logged an entry for its member; empty: the member) came after: a file
/// without it reads as before. An import takes no one's attribution: the entries are yours.
///
/// A field starting with `=`, `+`, `-`, `@`, a tab or a carriage return is written quoted and
/// after a `'` (OWASP's rule against formula injection: a spreadsheet would run `=HYPERLINK(...)`);
/// so is one that starts with `'`s before such a character, so that reading takes exactly one
/// `'` off a quoted field and gives back what was written.
public enum HistoryCSV {
    public static let header = [
        "kind", "member", "id", "date", "at_unix_ms", "amount_ml", "goal_ml", "name", "icon", "color", "drink",
        "factor", "made_by",
    ]
    /// The columns of an export from before drinks.
    static let headerBeforeDrinks = Array(header.prefix(10))
    /// The columns of an export from before `made_by`.
    static let headerBeforeMadeBy = Array(header.prefix(12))

    public static func write(_ histories: [WaterV1.MemberHistory]) -> String {
        var rows = [header]
        for history in histories {
            let member = history.member?.username ?? ""
            if let settings = history.settings {
                rows += settingsRows(settings, member: member)
            }
            if let reminders = history.reminders { rows.append(remindersRow(reminders, member: member)) }
            for entry in history.entries {
                rows.append([
                    "entry", member, entry.entryID, entry.date, "\(entry.atUnixMs)", "\(entry.amountMl)", "", "", "",
                    "", entry.drink,
                    entry.factorHundredths == 0 ? "" : HydrationFactor.text(Int32(clamping: entry.factorHundredths)),
                    entry.madeBy,
                ])
            }
            for goal in history.goals {
                rows.append(["goal", member, "", goal.date, "", "", "\(goal.goalMl)", "", "", "", "", "", ""])
            }
            for stored in history.habits {
                guard let habit = stored.habit else { continue }
                rows.append([
                    "habit", member, habit.habitID, "", "\(habit.createdAtUnixMs)", "", "", habit.name,
                    HabitIcon(rawValue: Int(habit.icon.rawValue))?.description ?? "",
                    HabitColor(rawValue: Int(habit.color.rawValue))?.description ?? "", "", "", "",
                ])
                for date in stored.checkedDates {
                    rows.append(["checkin", member, habit.habitID, date, "", "", "", "", "", "", "", "", ""])
                }
            }
            for excused in history.excused {
                rows.append(["excused", member, "", excused.date, "", "", "", excused.reason, "", "", "", "", ""])
            }
        }
        return rows.map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    /// The usual cup and drink, the named cups, and privacy unless full.
    private static func settingsRows(_ settings: WaterV1.Settings, member: String) -> [[String]] {
        var rows: [[String]] = []
        if settings.usualCupMl != 0 {
            rows.append([
                "cup", member, "", "", "", "\(settings.usualCupMl)", "", "", "", "", settings.usualDrink, "", "",
            ])
        }
        for cup in settings.cups {
            rows.append(["namedcup", member, "", "", "", "\(cup.amountMl)", "", cup.name, "", "", cup.drink, "", ""])
        }
        if settings.privacy != .full, let level = Privacy(rawValue: Int(settings.privacy.rawValue)) {
            rows.append(["privacy", member, "", "", "", "", "", level.description, "", "", "", "", ""])
        }
        return rows
    }

    /// A drink as the server would check it (WaterCore's rules) at `now`, refused naming `place`
    /// (the line of a CSV, the entry of a JSON export), which the server's refusal cannot name.
    public static func check(_ entry: WaterV1.WaterEntry, where place: String, now: Int64) throws(WaterError) {
        do throws(DomainError) {
            try WaterDiary.check(amount: entry.amountMl)
            try WaterDiary.check(time: entry.atUnixMs, now: now)
        } catch {
            throw WaterError(
                .invalidArgument, "\(place) (drink \(entry.entryID)): \(error.message)",
                violations: error.field.map {
                    [WaterV1.FieldViolation(field: "entries.\($0)", description: error.message)]
                } ?? [])
        }
    }

    /// The histories of an export, each drink checked as of `now`: refused naming the line.
    public static func read(_ text: String, now: Int64) throws(WaterError) -> [WaterV1.MemberHistory] {
        var histories: [String: WaterV1.MemberHistory] = [:]
        var order: [String] = []
        // A habit's place in its member's list, by member and habit id: a check-in names both.
        var habitIndex: [HabitKey: Int] = [:]
        let all = rows(text)
        // The first line names the columns: today's, or those of an export from before drinks.
        let width = [headerBeforeDrinks, headerBeforeMadeBy].first { $0 == all.first }?.count ?? header.count
        for (number, row) in all.enumerated().dropFirst() where !(row.count == 1 && row[0].isEmpty) {
            guard row.count == width else {
                throw WaterError(.invalidArgument, "line \(number + 1) has \(row.count) fields, not \(width)")
            }
            let member = row[1]
            if histories[member] == nil {
                order.append(member)
                histories[member] = WaterV1.MemberHistory(member: WaterV1.Member(username: member))
            }
            switch row[0] {
            case "cup", "namedcup", "privacy":
                var settings = histories[member]!.settings ?? WaterV1.Settings()
                try read(settings: &settings, row, width: width, line: number + 1)
                histories[member]!.settings = settings
            case "entry":
                let entry = WaterV1.WaterEntry(
                    entryID: row[2], amountMl: Int32(row[5]) ?? 0, atUnixMs: Int64(row[4]) ?? 0, date: row[3],
                    drink: width > 10 ? row[10] : "",
                    factorHundredths: try factor(width > 10 ? row[11] : "", line: number + 1))
                try check(entry, where: "line \(number + 1)", now: now)
                histories[member]!.entries.append(entry)
            case "goal":
                histories[member]!.goals.append(WaterV1.DailyGoal(date: row[3], goalMl: Int32(row[6]) ?? 0))
            case "habit":
                let habit = WaterV1.Habit(
                    habitID: row[2], name: row[7],
                    icon: WaterV1.HabitIcon(rawValue: Int32(HabitIcon(name: row[8])?.rawValue ?? -1)),
                    color: WaterV1.HabitColor(rawValue: Int32(HabitColor(name: row[9])?.rawValue ?? -1)),
                    createdAtUnixMs: Int64(row[4]) ?? 0)
                habitIndex[HabitKey(member: member, habitID: row[2])] = histories[member]!.habits.count
                histories[member]!.habits.append(WaterV1.HabitHistory(habit: habit))
            case "checkin":
                guard let index = habitIndex[HabitKey(member: member, habitID: row[2])] else {
                    throw WaterError(.invalidArgument, "line \(number + 1): a check-in of an unknown habit")
                }
                histories[member]!.habits[index].checkedDates.append(row[3])
            case "excused":
                histories[member]!.excused.append(WaterV1.ExcusedDate(date: row[3], reason: row[7]))
            case "reminders":
                histories[member]!.reminders = try reminders(row, line: number + 1)
            default:
                throw WaterError(.invalidArgument, "line \(number + 1): unknown kind \"\(row[0])\"")
            }
        }
        return order.map { histories[$0]! }
    }

    /// A `cup`, `namedcup` or `privacy` row into `settings`.
    private static func read(settings: inout WaterV1.Settings, _ row: [String], width: Int, line: Int)
        throws(WaterError)
    {
        if row[0] == "privacy" {
            guard let level = Privacy(name: row[7]) else {
                throw WaterError(.invalidArgument, "line \(line): a privacy is full, percent or hidden")
            }
            settings.privacy = WaterV1.Privacy(rawValue: Int32(level.rawValue))
            return
        }
        guard let amount = Int32(row[5]), amount > 0 else {
            let what = row[0] == "cup" ? "a usual cup" : "a named cup"
            throw WaterError(.invalidArgument, "line \(line): \(what) is a number of ml above 0")
        }
        let drink = width > 10 ? row[10] : ""
        if row[0] == "cup" {
            settings.usualCupMl = amount
            settings.usualDrink = drink
        } else {
            settings.cups.append(WaterV1.Cup(name: row[7], amountMl: amount, drink: drink))
        }
    }

    /// The reminders' row: `60` and `08:00-22:00 chores mqtt` (`-` for no water reminders).
    private static func remindersRow(_ reminders: WaterV1.ReminderSettings, member: String) -> [String] {
        let words =
            [reminders.everyMinutes == 0 ? "-" : "\(reminders.from)-\(reminders.to)"]
            + (reminders.chores ? ["chores"] : []) + (reminders.mqtt ? ["mqtt"] : [])
        return [
            "reminders", member, "", "", "", "\(reminders.everyMinutes)", "", words.joined(separator: " "), "", "", "",
            "", "",
        ]
    }

    /// A `reminders` row; the server checks the values as SetReminders does.
    private static func reminders(_ row: [String], line: Int) throws(WaterError) -> WaterV1.ReminderSettings {
        let words = row[7].split(separator: " ").map(String.init)
        let hours = words.first?.split(separator: "-", omittingEmptySubsequences: false).map(String.init) ?? []
        guard let every = UInt32(row[5]), words.first == "-" ? every == 0 : hours.count == 2 && every != 0,
            Set(words.dropFirst()).isSubset(of: ["chores", "mqtt"])
        else {
            throw WaterError(
                .invalidArgument,
                "line \(line): reminders are minutes, and hours like 08:00-22:00 (or -) with chores and mqtt if on")
        }
        let (from, to) = hours.count == 2 ? (hours[0], hours[1]) : ("", "")
        return WaterV1.ReminderSettings(
            everyMinutes: every, from: from, to: to, mqtt: words.contains("mqtt"), chores: words.contains("chores"))
    }

    private struct HabitKey: Hashable {
        var member: String
        var habitID: String
    }

    /// A factor as written ("1.50"), in hundredths; empty is none (water at 1.00).
    private static func factor(_ text: String, line: Int) throws(WaterError) -> UInt32 {
        guard !text.isEmpty else { return 0 }
        guard let hundredths = HydrationFactor.hundredths(text) else {
            throw WaterError(
                .invalidArgument, "line \(line): a factor is a number like 1.50, with at most two decimals")
        }
        return UInt32(hundredths)
    }

    /// RFC 4180: quotes around fields with a comma, quote or line break; quotes doubled. A
    /// field a spreadsheet would run as a formula is marked first (``isMarked(_:)``).
    private static func quoted(_ field: String) -> String {
        let marked = startsFormula(Substring(field).unicodeScalars.drop { $0 == "'" })
        let field = marked ? "'" + field : field
        guard marked || field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return field
        }
        return "\"" + field.replacing("\"", with: "\"\"") + "\""
    }

    /// Whether text starts with what a spreadsheet takes for a formula (OWASP's list).
    private static func startsFormula(_ scalars: Substring.UnicodeScalarView) -> Bool {
        guard let first = scalars.first else { return false }
        return ["=", "+", "-", "@", "\t", "\r"].contains(first)
    }

    /// A quoted field as written: without the `'` put before a formula (and its own `'`s kept).
    private static func unmarked(_ field: String) -> String {
        guard field.hasPrefix("'"), startsFormula(Substring(field).unicodeScalars.drop { $0 == "'" }) else {
            return field
        }
        return String(field.dropFirst())
    }

    /// The rows of RFC 4180 text. Walked by Unicode scalar: as a Character, "\r\n" is one
    /// grapheme, which is neither "\r" nor "\n".
    private static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = [[]]
        var field = String.UnicodeScalarView()
        var quoted = false
        var wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        func endField() {
            rows[rows.count - 1].append(wasQuoted ? unmarked(String(field)) : String(field))
            field = String.UnicodeScalarView()
            wasQuoted = false
        }
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            if quoted {
                if scalar == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = scalars.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" && field.isEmpty {
                quoted = true
                wasQuoted = true
            } else if scalar == "," {
                endField()
            } else if scalar == "\n" {
                endField()
                rows.append([])
            } else if scalar != "\r" {
                field.append(scalar)
            }
        }
        if !field.isEmpty || !(rows.last?.isEmpty ?? true) { endField() }
        if rows.last?.isEmpty == true { rows.removeLast() }
        return rows
    }
}
