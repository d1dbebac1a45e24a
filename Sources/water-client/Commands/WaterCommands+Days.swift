import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `today`, `week` and `history`: the member's days, from the server or as this computer last heard.
extension WaterCommands {
    enum Today: ClientCommand {
        static let spec = CommandSpec(
            "today", summary: "today's progress and drinks, newest first",
            details: "Shows today's amount, goal, percent, what is left and the drinks, newest first.",
            options: [forOption], examples: ["today", "--json today"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            try invocation.arguments.finish()
            guard let client = try invocation.reachableClient(for: member) else {
                return try offlineToday(invocation)
            }
            let response = try client.call(WaterV1.GetTodayRequest(forMember: member))
            let zoneName = response.settings?.timeZone ?? ""
            if member.isEmpty { invocation.remember(response) }
            invocation.output(response) {
                let day = response.day ?? WaterV1.DaySummary()
                let title = member.isEmpty ? Format.bold("Today") : "\(Format.bold("Today")) for \(member)"
                var lines = [
                    "\(title), \(Format.dayName(day.date))", Format.daySummary(day, named: false),
                    Format.streak(response.streak),
                ]
                if response.entries.isEmpty && !day.excused {
                    lines.append(
                        "no drinks yet today: water-client log\(Format.forHint(member)) logs "
                            + "\(member.isEmpty ? "your" : "\(member)'s") usual cup (\(response.settings?.usualCupMl ?? 250) ml)"
                    )
                }
                let zone = ZoneInfo.system.zone(named: zoneName) ?? Invocation.localZone
                if let mix = Format.mix(response.entries) { lines.append(mix) }
                lines += response.entries.map { Format.entry($0, zone: zone) }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// Today as this computer last heard it, with what waits in the outbox, marked.
    private static func offlineToday(_ invocation: Invocation) throws {
        let zone = try invocation.memberZone(nil)
        let now = UnixTime.nowMilliseconds()
        guard let cache = invocation.cachedStatus(), cache.today != nil else {
            // Nothing heard yet on this computer: only what waits here can be shown.
            let words = invocation.writeWords()
            let waiting = invocation.waitingWrites().filter { $0.kind == .log }.map { words($0) }
            guard !waiting.isEmpty else {
                throw WaterError(
                    .unavailable, "the server cannot be reached, and this computer has not heard about today yet")
            }
            return invocation.outputText(["unsent": waiting]) {
                (["the server cannot be reached, and this computer has not heard about today yet; not sent yet:"]
                    + waiting.map { "  \($0)" }).joined(separator: "\n")
            }
        }
        let day = cache.today(adding: invocation.waitingWrites(), zone: zone, now: now)
        if invocation.json {
            return Terminal.print(
                JSONOutput.encode(
                    OfflineDayJSON(
                        offline: true, day: day.summary, entries: day.entries.filter(\.sent).map(\.entry),
                        unsent: day.entries.filter { !$0.sent }.map(\.entry),
                        heardAtUnixMs: cache.updatedAtUnixMs)))
        }
        var lines = [
            "\(Format.bold("Today")), \(Format.dayName(day.summary.date)) (the server cannot be reached: as this "
                + "computer last heard, \(Format.age(now - cache.updatedAtUnixMs)) ago)",
            Format.daySummary(day.summary, named: false),
        ]
        lines += day.entries.map { Format.entry($0.entry, zone: zone) + ($0.sent ? "" : "  (not sent yet)") }
        Terminal.print(lines.joined(separator: "\n"))
    }

    enum Week: ClientCommand {
        static let spec = CommandSpec(
            "week", summary: "the last 7 days, a bar each against that day's goal",
            details: offlineDays,
            options: [forOption, entriesOption],
            examples: ["week", "week --entries"])

        static func run(_ invocation: inout Invocation) throws {
            try history(&invocation, days: 7)
        }
    }

    enum History: ClientCommand {
        static let spec = CommandSpec(
            "history", summary: "the last N days (1-366, default 7)",
            details: offlineDays,
            options: [
                forOption,
                OptionSpec("days", "N", "how many days, today included (1-366, default 7)"),
                entriesOption,
            ],
            examples: ["history --days 30", "history --days 3 --entries"])

        static func run(_ invocation: inout Invocation) throws {
            try history(&invocation, days: nil)
        }
    }

    /// What `week` and `history` show away from the server.
    private static let offlineDays = """
        Away from the server, the days as this computer last heard them, with the drinks not
        sent yet; days it never heard of are named, not drawn empty.
        """
    private static let entriesOption = OptionSpec("entries", nil, "also list each day's drinks with their ids")

    /// `week` is the last 7 days; `history --days N` the last N; `--entries` lists each day's
    /// drinks under it, with the ids `edit` and `rm` take.
    private static func history(_ invocation: inout Invocation, days fixed: UInt32?) throws {
        let days = try fixed ?? invocation.arguments.integer("days", in: UInt32(1)...366) ?? 7
        let withEntries = invocation.arguments.flag("entries")
        let member = try invocation.forMember()
        try invocation.arguments.finish()
        guard let client = try invocation.reachableClient(for: member) else {
            return try offlineHistory(invocation, days: Int(days))
        }
        let zone = withEntries ? try invocation.zone(for: member, client) : Invocation.localZone
        let response = try client.call(
            WaterV1.GetHistoryRequest(days: days, includeEntries: withEntries, forMember: member))
        invocation.updateCache(for: member) { cache in
            cache.days = response.days
            cache.record(day: response.days.last, now: UnixTime.nowMilliseconds())
        }
        invocation.output(response) {
            let met = response.days.filter(\.goalMet).count
            let byDate = Dictionary(grouping: response.entries, by: \.date)
            let lines = response.days.flatMap { day in
                [Format.dayLine(day)] + (byDate[day.date] ?? []).map { "    " + Format.entry($0, zone: zone) }
            }
            let excused = response.days.filter(\.excused).count
            let footer =
                (excused == 0 ? "" : "\(excused) excused, ")
                + "goal met on \(met) of \(Format.counted(response.days.count, "day", "days"))"
            return (lines + [Format.streak(response.streak), footer]).joined(separator: "\n")
        }
    }

    /// The days this computer last heard of, with what waits in the outbox on any of them
    /// (a drink logged for yesterday counts on yesterday), each day's waiting drinks under it.
    private static func offlineHistory(_ invocation: Invocation, days: Int) throws {
        guard let cache = invocation.cachedStatus() else {
            throw WaterError(
                .unavailable, "the server cannot be reached, and this computer has not heard about these days yet")
        }
        let zone = try invocation.memberZone(nil)
        let now = UnixTime.nowMilliseconds()
        let today = zone.date(atUnixMilliseconds: now)
        let dates = (0..<days).reversed().map { today.adding(days: -$0).description }
        let heard = Set(cache.days.map(\.date) + [today.description])
        let shown = cache.days(dates, adding: invocation.waitingWrites(), zone: zone).filter {
            heard.contains($0.summary.date) || $0.unsent > 0
        }
        let unsent = shown.flatMap { $0.entries.filter { !$0.sent }.map(\.entry) }
        let shownDates = Set(shown.map(\.summary.date))
        let notHeard = dates.filter { !shownDates.contains($0) }
        if invocation.json {
            return Terminal.print(
                JSONOutput.encode(
                    OfflineDaysJSON(
                        offline: true, days: shown.map(\.summary), unsent: unsent,
                        heardAtUnixMs: cache.updatedAtUnixMs, notHeard: notHeard)))
        }
        var lines = [
            "the server cannot be reached: as this computer last heard, \(Format.age(now - cache.updatedAtUnixMs)) ago"
        ]
        for day in shown {
            lines.append(Format.dayLine(day.summary))
            lines += day.entries.filter { !$0.sent }.map {
                "    " + Format.entry($0.entry, zone: zone) + "  (not sent yet)"
            }
        }
        // Days never heard here are not shown as days with nothing drunk: they are unknown.
        if !notHeard.isEmpty {
            let days = Format.counted(notHeard.count, "day", "days")
            lines.append(
                shownDates == [today.description]
                    ? "this computer has heard only of today: the \(days) before it show once the server can be reached"
                    : "this computer has not heard of \(days) of these: they show once the server can be reached")
        }
        Terminal.print(lines.joined(separator: "\n"))
    }
}

/// `today --json` away from the server.
struct OfflineDayJSON: Encodable {
    var offline: Bool
    var day: WaterV1.DaySummary
    var entries: [WaterV1.WaterEntry]
    var unsent: [WaterV1.WaterEntry]
    var heardAtUnixMs: Int64
}

/// `week --json` and `history --json` away from the server.
struct OfflineDaysJSON: Encodable {
    var offline: Bool
    var days: [WaterV1.DaySummary]
    var unsent: [WaterV1.WaterEntry]
    var heardAtUnixMs: Int64
    /// The days asked for that this computer never heard of (and nothing waits for).
    var notHeard: [String]
}
