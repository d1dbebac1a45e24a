import FoundationEssentials
import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `export --format json|csv [--household] [--output FILE]` and `import FILE`.
enum TransferCommands {
    enum Export: ClientCommand {
        static let spec = CommandSpec(
            "export", summary: "your whole history out (admins: the household's)",
            details: """
                Writes your whole history (entries with their drink and factor, each day's goal, your
                usual cup and drink, named cups, privacy, habits and check-ins, and your reminders but
                never their push URL or token); admins may export the
                whole household (a member whose archive cannot be read is named on standard error and
                left out). In CSV, a text field starting with =, +, -, @, a tab or a carriage return is
                quoted and begins with ' so that no spreadsheet runs it; import reads it back as it was.
                """,
            options: [
                OptionSpec("format", "FORMAT", "json (default) or csv", choices: ["json", "csv"]),
                OptionSpec("household", nil, "every member (admins)"),
                OptionSpec("output", "FILE", "write to FILE (0600) instead of standard output"),
            ],
            examples: ["export --output water.json", "export --format csv --household --output family.csv"])

        static func run(_ invocation: inout Invocation) throws {
            let format = try invocation.arguments.option("format") ?? "json"
            let household = invocation.arguments.flag("household")
            let output = try invocation.arguments.option("output")
            try invocation.arguments.finish()
            guard format == "json" || format == "csv" else {
                throw UsageError("--format takes json or csv, got \(format)")
            }
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
                ? JSONOutput.encode(merged, pretty: !(invocation.json && output == nil)) + "\n"
                : HistoryCSV.write(merged)
            guard let output else { return Terminal.write(1, text) }
            try write(text, to: output)
            let entries = merged.map { $0.entries.count }.reduce(0, +)
            if invocation.json {
                Terminal.print(
                    JSONOutput.encode(ExportSummary(output: output, members: merged.count, entries: entries)))
            } else {
                Terminal.error(
                    "exported \(Format.counted(entries, "entry", "entries")) of "
                        + "\(Format.counted(merged.count, "member", "members")) to \(output)")
            }
        }
    }

    /// An export's file, readable by its owner only (0600).
    static func write(_ text: String, to output: String) throws {
        guard
            FileManager.default.createFile(
                atPath: output, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw WaterClientError("cannot write \(output)")
        }
    }

    /// What `export --output FILE --json` prints.
    struct ExportSummary: Encodable {
        var output: String
        var members: Int
        var entries: Int
    }

    enum Import: ClientCommand {
        static let spec = CommandSpec(
            "import", "FILE", summary: "read an export back (twice changes nothing)",
            details: """
                Reads back an export of one member (JSON or CSV) into your archive, checked like the
                live commands, with your usual cup and drink, named cups, privacy and reminders (your
                push endpoint stays as it is: an export never holds one). Ids make it
                idempotent: importing twice changes nothing. An export of another member is refused
                unless you say --yes (their drinks would become yours). A file that cannot be read
                exits 66, with the system's reason.
                """,
            options: [OptionSpec("yes", nil, "take another member's export into your archive")],
            examples: ["import water.json"])

        static func run(_ invocation: inout Invocation) throws {
            guard let path = invocation.arguments.positional() else {
                throw UsageError("import needs a file written by water-client export")
            }
            let anyMember = invocation.arguments.flag("yes")
            try invocation.arguments.finish()
            guard var data = FileManager.default.contents(atPath: path) else {
                // Why, in the system's words: the command line was right, the file is not there.
                throw UnreadableFile(path: path, reason: UnreadableFile.reason(path))
            }
            // A byte-order mark, as Excel and Windows' Notepad save UTF-8: not part of the text.
            if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
            let text = String(decoding: data, as: UTF8.self)
            let histories: [WaterV1.MemberHistory]
            if text.hasPrefix("kind,") {
                histories = try HistoryCSV.read(text, now: UnixTime.nowMilliseconds())
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
                    try HistoryCSV.check(
                        entry, where: "entry \(number + 1) of \(path)", now: UnixTime.nowMilliseconds())
                }
            }
            // Another member's drinks taken into yours put you where they were on the board.
            if let named = history.member?.username, !named.isEmpty, let session = invocation.session(),
                named != session.username, !anyMember
            {
                throw WaterError(
                    .invalidArgument,
                    "\(path) is the export of \(named.terminalSafe), and you are logged in as \(session.username); "
                        + "nothing was imported (import --yes takes it into \(session.username)'s archive all the same)"
                )
            }
            let client = try invocation.client()
            try checkRoom(history, of: path, zone: try invocation.memberZone(client))
            var total = WaterV1.ImportResponse()
            // In pieces, so every request stays well under the frame limit; the first carries the
            // settings, goals and habits. The server refuses a piece whole; one that would go over
            // a cap with what the archive holds already ends the import, the pieces before it kept.
            for entries in importParts(history.entries.count, size: 4000) {
                let start = entries.lowerBound
                let part = WaterV1.MemberHistory(
                    settings: start == 0 ? history.settings : nil, entries: Array(history.entries[entries]),
                    goals: start == 0 ? history.goals : [], habits: start == 0 ? history.habits : [],
                    excused: start == 0 ? history.excused : [], reminders: start == 0 ? history.reminders : nil)
                let added: WaterV1.ImportResponse
                do throws(WaterError) {
                    added = try client.call(WaterV1.ImportRequest(history: part))
                } catch {
                    guard start > 0, !error.isUnreachable else { throw error }
                    throw WaterError(
                        error.code,
                        "\(error.message); the file's first \(start) entries went in before it (\(total.entriesAdded) of "
                            + "them new): importing the file again adds only what is missing",
                        violations: error.violations)
                }
                total.entriesAdded += added.entriesAdded
                total.goalsAdded += added.goalsAdded
                total.habitsAdded += added.habitsAdded
                total.checkinsAdded += added.checkinsAdded
                total.excusedAdded += added.excusedAdded
                total.remindersSet = total.remindersSet || added.remindersSet
            }
            invocation.output(total) {
                "imported \(Format.counted(total.entriesAdded, "entry", "entries")), "
                    + "\(Format.counted(total.goalsAdded, "goal", "goals")), \(Format.counted(total.habitsAdded, "habit", "habits")) and "
                    + "\(Format.counted(total.checkinsAdded, "check-in", "check-ins"))"
                    + (total.excusedAdded == 0
                        ? "" : ", \(Format.counted(total.excusedAdded, "excused day", "excused days"))")
                    + (total.remindersSet ? ", and your reminders (your push endpoint kept)" : "")
                    + " (what was there already was left alone)"
            }
        }
    }

    /// `0..<count` in parts of at most `size`, in order: what an import sends a request each for.
    /// One empty part when `count` is 0, as the first part also carries what is sent once.
    static func importParts(_ count: Int, size: Int) -> [Range<Int>] {
        stride(from: 0, to: max(count, 1), by: size).map { $0..<min($0 + size, count) }
    }

    /// The caps on a member's drinks (``WaterLimits``) on the file alone, before anything is
    /// sent: a file that holds more than a day, a year or an archive holds adds nothing. What
    /// the archive has already, the server counts.
    static func checkRoom(_ history: WaterV1.MemberHistory, of path: String, zone: MemberTimeZone) throws {
        var ids: Set<String> = []
        let dates = history.entries.filter { ids.insert($0.entryID).inserted }.map {
            zone.date(atUnixMilliseconds: $0.atUnixMs)
        }
        do {
            try WaterDiary(timeZone: zone).checkRoom(adding: dates)
        } catch {
            throw WaterError(.failedPrecondition, "\(path): \(error.message); nothing was imported")
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
