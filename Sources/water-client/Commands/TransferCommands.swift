import FoundationEssentials
import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `export --format json|csv [--household] [--output FILE]` and `import FILE`.
enum TransferCommands {
    static func export(_ invocation: inout Invocation) throws {
        let format = try invocation.arguments.option("format") ?? "json"
        let household = invocation.arguments.flag("household")
        let output = try invocation.arguments.option("output")
        try invocation.arguments.finish()
        guard format == "json" || format == "csv" else { throw UsageError("--format takes json or csv, got \(format)") }
        var histories: [WaterV1.MemberHistory] = []
        var unavailable: [WaterV1.Member] = []
        try invocation.client().stream(WaterV1.ExportRequest(household: household)) { response in
            if let history = response.history { histories.append(history) }
            if let member = response.unavailable { unavailable.append(member) }
            return true
        }
        // The rest of the household is exported; who is missing is said, never left out silently.
        for member in unavailable {
            Terminal.error(
                "water-client: \(member.username)'s archive cannot be read (protected until an admin repairs it: "
                    + "water-server check); exported everyone else")
        }
        let merged = merge(histories)
        // The file format; with --json on standard output, on one line like every reply.
        let text =
            format == "json"
            ? JSONOutput.encode(merged, pretty: !(invocation.json && output == nil)) + "\n" : HistoryCSV.write(merged)
        guard let output else { return Terminal.write(1, text) }
        guard
            FileManager.default.createFile(
                atPath: output, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw WaterClientError("cannot write \(output)")
        }
        let entries = merged.map { $0.entries.count }.reduce(0, +)
        if invocation.json {
            Terminal.print(JSONOutput.encode(ExportSummary(output: output, members: merged.count, entries: entries)))
        } else {
            Terminal.error(
                "exported \(Format.counted(entries, "entry", "entries")) of "
                    + "\(Format.counted(merged.count, "member", "members")) to \(output)")
        }
    }

    /// What `export --output FILE --json` prints.
    struct ExportSummary: Encodable {
        var output: String
        var members: Int
        var entries: Int
    }

    static func `import`(_ invocation: inout Invocation) throws {
        guard let path = invocation.arguments.positional() else {
            throw UsageError("import needs a file written by water-client export")
        }
        let anyMember = invocation.arguments.flag("yes")
        try invocation.arguments.finish()
        guard var data = FileManager.default.contents(atPath: path) else {
            // Why, in the system's words: the command line was right, the file is not there.
            let reason = access(path, R_OK) == 0 ? "it could not be read" : String(cString: strerror(errno))
            throw WaterError(.notFound, "cannot read \(path): \(reason)")
        }
        // A byte-order mark, as Excel and Windows' Notepad save UTF-8: not part of the text.
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        let text = String(decoding: data, as: UTF8.self)
        let histories: [WaterV1.MemberHistory]
        if text.hasPrefix("kind,") {
            histories = try HistoryCSV.read(text)
        } else {
            do {
                histories = try JSONDecoder().decode([WaterV1.MemberHistory].self, from: data)
            } catch {
                throw WaterError(.invalidArgument, "\(path) is neither a JSON nor a CSV export of water-client")
            }
        }
        guard histories.count == 1, let history = histories.first else {
            throw WaterError(
                .invalidArgument, "\(path) holds \(histories.count) members' histories; import one member's export")
        }
        if !text.hasPrefix("kind,") {
            for (number, entry) in history.entries.enumerated() {
                try HistoryCSV.check(entry, where: "entry \(number + 1) of \(path)")
            }
        }
        // Another member's drinks taken into yours put you where they were on the board.
        if let named = history.member?.username, !named.isEmpty, let session = invocation.session(),
            named != session.username, !anyMember
        {
            throw WaterError(
                .invalidArgument,
                "\(path) is the export of \(named.terminalSafe), and you are logged in as \(session.username); "
                    + "nothing was imported (import --yes takes it into \(session.username)'s archive all the same)")
        }
        let client = try invocation.client()
        var total = WaterV1.ImportResponse()
        // In pieces, so every request stays well under the frame limit; the first carries the
        // settings, goals and habits.
        var start = 0
        repeat {
            let end = min(start + 4000, history.entries.count)
            let part = WaterV1.MemberHistory(
                settings: start == 0 ? history.settings : nil, entries: Array(history.entries[start..<end]),
                goals: start == 0 ? history.goals : [], habits: start == 0 ? history.habits : [],
                excused: start == 0 ? history.excused : [])
            let added = try client.call(WaterV1.ImportRequest(history: part))
            total.entriesAdded += added.entriesAdded
            total.goalsAdded += added.goalsAdded
            total.habitsAdded += added.habitsAdded
            total.checkinsAdded += added.checkinsAdded
            total.excusedAdded += added.excusedAdded
            start = end
        } while start < history.entries.count
        invocation.output(total) {
            "imported \(Format.counted(total.entriesAdded, "entry", "entries")), "
                + "\(Format.counted(total.goalsAdded, "goal", "goals")), \(Format.counted(total.habitsAdded, "habit", "habits")) and "
                + "\(Format.counted(total.checkinsAdded, "check-in", "check-ins"))"
                + (total.excusedAdded == 0
                    ? "" : ", \(Format.counted(total.excusedAdded, "excused day", "excused days"))")
                + " (what was there already was left alone)"
        }
    }

    /// Joins the chunks of each member into one history, in the order they came.
    static func merge(_ chunks: [WaterV1.MemberHistory]) -> [WaterV1.MemberHistory] {
        var merged: [WaterV1.MemberHistory] = []
        for chunk in chunks {
            if let last = merged.last, last.member?.memberID == chunk.member?.memberID {
                merged[merged.count - 1].entries += chunk.entries
                merged[merged.count - 1].goals += chunk.goals
                merged[merged.count - 1].habits += chunk.habits
                merged[merged.count - 1].excused += chunk.excused
            } else {
                merged.append(chunk)
            }
        }
        return merged
    }

}

/// The CSV form of an export: one row per entry, daily goal, habit, check-in and excused day
/// (its reason in `name`), and one for the usual cup. Read with LF or CRLF line ends (what spreadsheets and Python's csv write).
///
///     kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color,drink,factor,made_by
///     cup,mum,,,,250,,,,,,,
///     entry,mum,0192e4a0-...,2026-11-30,1796040000000,200,,,,,milk,1.50,
///     entry,kim,0192e4a0-...,2026-11-30,1796040000000,200,,,,,water,1.00,mum
///
/// A file from before drinks has no `drink` and `factor` columns: its entries are water at 1.00.
/// `made_by` (who logged an entry for its member; empty: the member) came after: a file
/// without it reads as before. An import takes no one's attribution: the entries are yours.
enum HistoryCSV {
    static let header = [
        "kind", "member", "id", "date", "at_unix_ms", "amount_ml", "goal_ml", "name", "icon", "color", "drink",
        "factor", "made_by",
    ]
    /// The columns of an export from before drinks.
    static let headerBeforeDrinks = Array(header.prefix(10))
    /// The columns of an export from before `made_by`.
    static let headerBeforeMadeBy = Array(header.prefix(12))

    static func write(_ histories: [WaterV1.MemberHistory]) -> String {
        var rows = [header]
        for history in histories {
            let member = history.member?.username ?? ""
            if let cup = history.settings?.usualCupMl, cup != 0 {
                rows.append(["cup", member, "", "", "", "\(cup)", "", "", "", "", "", "", ""])
            }
            for entry in history.entries {
                rows.append([
                    "entry", member, entry.entryID, entry.date, "\(entry.atUnixMs)", "\(entry.amountMl)", "", "", "",
                    "", entry.drink,
                    entry.drink.isEmpty ? "" : HydrationFactor.text(Int32(clamping: entry.factorHundredths)),
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

    /// A drink as the server would check it (WaterCore's rules), refused naming `place` (the
    /// line of a CSV, the entry of a JSON export), which the server's refusal cannot name.
    static func check(_ entry: WaterV1.WaterEntry, where place: String) throws(WaterError) {
        do throws(DomainError) {
            try WaterDiary.check(amount: entry.amountMl)
            try WaterDiary.check(time: entry.atUnixMs, now: UnixTime.nowMilliseconds())
        } catch {
            throw WaterError(
                .invalidArgument, "\(place) (drink \(entry.entryID.terminalSafe)): \(error.message)",
                violations: error.field.map {
                    [WaterV1.FieldViolation(field: "entries.\($0)", description: error.message)]
                } ?? [])
        }
    }

    static func read(_ text: String) throws -> [WaterV1.MemberHistory] {
        var histories: [String: WaterV1.MemberHistory] = [:]
        var order: [String] = []
        var habitIndex: [String: Int] = [:]
        let all = try rows(text)
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
            case "cup":
                histories[member]!.settings = WaterV1.Settings(usualCupMl: Int32(row[5]) ?? 0)
            case "entry":
                let entry = WaterV1.WaterEntry(
                    entryID: row[2], amountMl: Int32(row[5]) ?? 0, atUnixMs: Int64(row[4]) ?? 0, date: row[3],
                    drink: width > 10 ? row[10] : "",
                    factorHundredths: try factor(width > 10 ? row[11] : "", line: number + 1))
                try HistoryCSV.check(entry, where: "line \(number + 1)")
                histories[member]!.entries.append(entry)
            case "goal":
                histories[member]!.goals.append(WaterV1.DailyGoal(date: row[3], goalMl: Int32(row[6]) ?? 0))
            case "habit":
                let habit = WaterV1.Habit(
                    habitID: row[2], name: row[7],
                    icon: WaterV1.HabitIcon(rawValue: Int32(HabitIcon(name: row[8])?.rawValue ?? -1)),
                    color: WaterV1.HabitColor(rawValue: Int32(HabitColor(name: row[9])?.rawValue ?? -1)),
                    createdAtUnixMs: Int64(row[4]) ?? 0)
                habitIndex[row[2]] = histories[member]!.habits.count
                histories[member]!.habits.append(WaterV1.HabitHistory(habit: habit))
            case "checkin":
                guard let index = habitIndex[row[2]] else {
                    throw WaterError(.invalidArgument, "line \(number + 1): a check-in of an unknown habit")
                }
                histories[member]!.habits[index].checkedDates.append(row[3])
            case "excused":
                histories[member]!.excused.append(WaterV1.ExcusedDate(date: row[3], reason: row[7]))
            default:
                throw WaterError(.invalidArgument, "line \(number + 1): unknown kind \"\(row[0])\"")
            }
        }
        return order.map { histories[$0]! }
    }

    /// A factor as written ("1.50"), in hundredths; empty is none (water at 1.00).
    private static func factor(_ text: String, line: Int) throws -> UInt32 {
        guard !text.isEmpty else { return 0 }
        guard let hundredths = HydrationFactor.hundredths(text) else {
            throw WaterError(
                .invalidArgument, "line \(line): a factor is a number like 1.50, with at most two decimals")
        }
        return UInt32(hundredths)
    }

    /// RFC 4180: quotes around fields with a comma, quote or line break; quotes doubled.
    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacing("\"", with: "\"\"") + "\""
    }

    /// The rows of RFC 4180 text. Walked by Unicode scalar: as a Character, "\r\n" is one
    /// grapheme, which is neither "\r" nor "\n".
    private static func rows(_ text: String) throws -> [[String]] {
        var rows: [[String]] = [[]]
        var field = String.UnicodeScalarView()
        var quoted = false
        var scalars = text.unicodeScalars.makeIterator()
        func endField() {
            rows[rows.count - 1].append(String(field))
            field = String.UnicodeScalarView()
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
