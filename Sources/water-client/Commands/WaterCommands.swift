import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `log`, `undo`, `edit`, `rm`, `today`, `week`, `history`, `goal`, `cup`.
enum WaterCommands {
    static func log(_ invocation: inout Invocation) throws {
        let at = try invocation.arguments.option("at")
        let idText = try invocation.arguments.option("id")
        let member = try invocation.forMember()
        var words: [String] = []
        while let word = invocation.arguments.positional() { words.append(word) }
        try invocation.arguments.finish()
        let typed = try LogGrammar(words)
        let amount = typed.amountMillilitres
        let client = try invocation.reachableClient()
        let now = UnixTime.nowMilliseconds()
        let zone = try invocation.zone(for: member, client)
        let time = try Invocation.time(at, zone: zone)  // 0: the server's now
        // The id carries the moment of logging; a replay with --id is recognised by the server.
        let id =
            try idText.map { text -> String in
                guard RecordID(text) != nil else { throw UsageError("--id must be a UUID, got \"\(text)\"") }
                return text
            } ?? invocation.newID(at: now)
        let request = WaterV1.LogWaterRequest(
            entryID: id, amountMl: amount ?? 0, atUnixMs: time, drink: typed.name ?? "", usualDrink: typed.name == nil,
            forMember: member)
        // Kept for later, it is the drink as typed (its moment and usual cup fixed when kept).
        var queued = request
        if client == nil { try checkOffline(&queued, typedAmount: amount, invocation.cachedStatus()) }
        guard let response = try invocation.callOrQueue(client, request, queued: .log(queued)) else { return }
        invocation.updateCache(for: member) { cache in
            cache.record(day: response.day, now: now)
            response.entry.map { cache.record(entry: $0, now: now) }
        }
        invocation.output(response) {
            let entry = response.entry ?? WaterV1.WaterEntry()
            let verb = response.duplicate ? "already logged" : "logged"
            let forWhom = member.isEmpty ? "" : " for \(member)"
            return
                "\(verb) \(Format.drink(entry))\(forWhom) \(Format.when(entry, zone: zone)) (\(Format.shortID(entry.entryID)))\n"
                + Format.daySummary(response.day ?? WaterV1.DaySummary())
        }
    }

    /// Away from the server, the drink as typed: the usual drink as last heard, and refused (65)
    /// when the household did not have it as last heard, as the server would refuse it.
    private static func checkOffline(
        _ queued: inout WaterV1.LogWaterRequest, typedAmount: Int32?, _ cache: StatusCache?
    ) throws {
        guard let cache, !cache.drinks.isEmpty else { return }  // nothing heard yet: the server decides
        // For another member, only the household's drinks are known here (cups are theirs).
        guard queued.forMember.isEmpty else {
            guard queued.drink.isEmpty || cache.drinks.contains(where: { $0.name == queued.drink }) else {
                throw unknownDrink(queued.drink, cache)
            }
            return
        }
        // A named cup (never a drink's name): its amount, of its drink or the usual one.
        if !cache.drinks.contains(where: { $0.name == queued.drink }),
            let cup = cache.cups.first(where: { $0.name == queued.drink })
        {
            if typedAmount == nil { queued.amountMl = cup.amountMl }
            queued.drink = cup.drink
            queued.usualDrink = cup.drink.isEmpty
        }
        if queued.drink.isEmpty && queued.usualDrink && !cache.usualDrink.isEmpty {
            queued.drink = cache.usualDrink
            queued.usualDrink = false
        }
        guard queued.drink.isEmpty || cache.drinks.contains(where: { $0.name == queued.drink }) else {
            throw unknownDrink(queued.drink, cache)
        }
    }

    private static func unknownDrink(_ name: String, _ cache: StatusCache) -> WaterError {
        WaterError(
            .invalidArgument,
            "the household has no drink called \(name.terminalSafe), as this computer last heard; it has "
                + cache.drinks.map(\.name.terminalSafe).joined(separator: ", ") + " (nothing was saved)")
    }

    /// Removes the drink logged last. Away from the server: a drink still waiting in the outbox
    /// is taken back from it; otherwise the newest drink of today this computer knows of is
    /// kept for removal by its id (never a blind "undo" sent later, which could reach further).
    static func undo(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        try invocation.arguments.finish()
        guard let client = try invocation.reachableClient() else {
            // Undo away from the server works on this computer's own writes, the caller's.
            try invocation.refuseOffline(for: member)
            return try undoOffline(invocation)
        }
        let zone = try invocation.zone(for: member, client)
        let response = try client.call(WaterV1.UndoWaterRequest(forMember: member))
        let now = UnixTime.nowMilliseconds()
        invocation.updateCache(for: member) { cache in
            cache.record(day: response.day, now: now)
            response.entry.map { cache.forget(entryID: $0.entryID) }
        }
        invocation.output(response) {
            "removed \(response.entry?.amountMl ?? 0) ml logged \(Format.when(response.entry ?? WaterV1.WaterEntry(), zone: zone))\n"
                + Format.daySummary(response.day ?? WaterV1.DaySummary())
        }
    }

    private static func undoOffline(_ invocation: Invocation) throws {
        let outbox = invocation.outbox
        if let last = invocation.waitingWrites().last(where: { $0.kind == .log && !$0.request.isForAnotherMember }) {
            outbox.withdraw(last)
            invocation.updateCache { _ in }
            let what = invocation.writeWords()(last)
            if invocation.json {
                Terminal.print(JSONOutput.encode(["withdrawn": what]))
            } else {
                Terminal.print("took back a drink saved on this computer and not sent yet: \(what)")
            }
            return
        }
        // Ids are time-ordered by the moment of logging: the greatest is the one logged last,
        // among today's drinks not already waiting to be removed.
        let removing = Set(
            invocation.waitingWrites().compactMap { write -> String? in
                guard case .remove(let request) = write.request else { return nil }
                return request.entryID
            })
        let standing = invocation.cachedStatus()?.entries.filter { !removing.contains($0.entryID) }
        guard let newest = standing?.max(by: { $0.entryID < $1.entryID }) else {
            throw WaterError(
                .unavailable,
                "the server cannot be reached, and this computer does not know which drink you logged last; "
                    + "try again when it can be reached")
        }
        // The cache keeps the drink: today's view takes it off while its removal waits.
        try invocation.queue(.remove(WaterV1.DeleteWaterRequest(entryID: newest.entryID)))
    }

    static func edit(_ invocation: inout Invocation) throws {
        let amount = try invocation.arguments.option("amount").map { try drinkMl($0) }
        let at = try invocation.arguments.option("at")
        let member = try invocation.forMember()
        guard let idText = invocation.arguments.positional() else {
            throw UsageError("edit needs an entry id (see water-client today or history --entries)")
        }
        try invocation.arguments.finish()
        guard amount != nil || at != nil else { throw UsageError("edit needs --amount ML, --at WHEN or both") }
        let client = try invocation.reachableClient()
        let zone = try invocation.zone(for: member, client)
        let time = try Invocation.time(at, zone: zone)
        let id = try resolve(idText, client, invocation, zone: zone, for: member)
        let request = WaterV1.EditWaterRequest(entryID: id, amountMl: amount ?? 0, atUnixMs: time, forMember: member)
        guard let response = try invocation.callOrQueue(client, request, queued: .edit(request)) else { return }
        let now = UnixTime.nowMilliseconds()
        invocation.updateCache(for: member) { cache in
            response.days.forEach { cache.record(day: $0, now: now) }
            response.entry.map { cache.record(entry: $0, now: now) }
        }
        invocation.output(response) {
            let entry = response.entry ?? WaterV1.WaterEntry()
            return "now \(entry.amountMl) ml \(Format.when(entry, zone: zone))\n"
                + response.days.map(Format.dayLine).joined(separator: "\n")
        }
    }

    static func remove(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        guard let idText = invocation.arguments.positional() else {
            throw UsageError("rm needs an entry id (see water-client today or history --entries)")
        }
        try invocation.arguments.finish()
        let client = try invocation.reachableClient()
        let zone = try invocation.zone(for: member, client)
        let id = try resolve(idText, client, invocation, zone: zone, for: member)
        let request = WaterV1.DeleteWaterRequest(entryID: id, forMember: member)
        guard let response = try invocation.callOrQueue(client, request, queued: .remove(request)) else { return }
        invocation.updateCache(for: member) { cache in
            cache.record(day: response.day, now: UnixTime.nowMilliseconds())
            cache.forget(entryID: id)
        }
        invocation.output(response) {
            "removed \(response.entry?.amountMl ?? 0) ml logged \(Format.when(response.entry ?? WaterV1.WaterEntry(), zone: zone))\n"
                + Format.daySummary(response.day ?? WaterV1.DaySummary())
        }
    }

    static func today(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        try invocation.arguments.finish()
        guard let client = try invocation.reachableClient() else {
            try invocation.refuseOffline(for: member)
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
                    "no drinks yet today: water-client log logs your usual cup (\(response.settings?.usualCupMl ?? 250) ml)"
                )
            }
            let zone = ZoneInfo.system.zone(named: zoneName) ?? Invocation.localZone
            if let mix = Format.mix(response.entries) { lines.append(mix) }
            lines += response.entries.map { Format.entry($0, zone: zone) }
            return lines.joined(separator: "\n")
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

    /// `week` is the last 7 days; `history --days N` the last N; `--entries` lists each day's
    /// drinks under it, with the ids `edit` and `rm` take.
    static func history(_ invocation: inout Invocation, days fixed: UInt32?) throws {
        let days = try fixed ?? invocation.arguments.integer("days", in: UInt32(1)...366) ?? 7
        let withEntries = invocation.arguments.flag("entries")
        let member = try invocation.forMember()
        try invocation.arguments.finish()
        guard let client = try invocation.reachableClient() else {
            try invocation.refuseOffline(for: member)
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
        if invocation.json {
            return Terminal.print(
                JSONOutput.encode(
                    OfflineDaysJSON(
                        offline: true, days: shown.map(\.summary), unsent: unsent,
                        heardAtUnixMs: cache.updatedAtUnixMs)))
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
        Terminal.print(lines.joined(separator: "\n"))
    }

    static func goal(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        let amount = try invocation.arguments.positional().map(amountMl)
        try invocation.arguments.finish()
        let client = try invocation.client()
        guard let amount else {
            let response = try client.call(WaterV1.GetSettingsRequest(forMember: member))
            return invocation.output(response) { "daily goal: \(response.settings?.dailyGoalMl ?? 0) ml" }
        }
        let response = try client.call(WaterV1.SetGoalRequest(dailyGoalMl: amount, forMember: member))
        invocation.output(response) {
            "daily goal: \(response.settings?.dailyGoalMl ?? 0) ml from today on (past days keep theirs)\n"
                + Format.daySummary(response.today ?? WaterV1.DaySummary())
        }
    }

    static func cup(_ invocation: inout Invocation) throws {
        let drink = try invocation.arguments.option("drink")
        let member = try invocation.forMember()
        let amount = try invocation.arguments.positional().map(amountMl)
        try invocation.arguments.finish()
        let client = try invocation.client()
        let settings: WaterV1.Settings?
        if amount != nil || drink != nil {
            let response = try client.call(
                WaterV1.SetUsualCupRequest(usualCupMl: amount ?? 0, usualDrink: drink ?? "", forMember: member))
            settings = response.settings
            invocation.output(response) { cupText(settings) }
        } else {
            let response = try client.call(WaterV1.GetSettingsRequest(forMember: member))
            settings = response.settings
            invocation.output(response) { cupText(settings) }
        }
    }

    /// `zone [ZONE]`: shows your time zone, or moves your days to another (people move, and
    /// travel); every drink keeps its instant.
    static func zone(_ invocation: inout Invocation) throws {
        let zone = invocation.arguments.positional()
        try invocation.arguments.finish()
        let client = try invocation.client()
        if let zone {
            let response = try setZone(zone, client)
            invocation.rememberZone(response.settings?.timeZone ?? "")
            invocation.output(response) {
                "your days now follow \((response.settings?.timeZone ?? zone).terminalSafe)\n"
                    + Format.daySummary(response.today ?? WaterV1.DaySummary())
            }
        } else {
            let response = try client.call(WaterV1.GetSettingsRequest())
            invocation.output(response) { "your days follow \((response.settings?.timeZone ?? "?").terminalSafe)" }
        }
    }

    /// `cup add NAME ML [--drink DRINK]`, `cup ls`, `cup rm NAME`: the member's named cups.
    static func namedCup(_ invocation: inout Invocation, action: String) throws {
        let member = try invocation.forMember()
        switch action {
        case "add":
            let drink = try invocation.arguments.option("drink") ?? ""
            guard let name = invocation.arguments.positional(), let ml = invocation.arguments.positional() else {
                throw UsageError("cup add needs a name and an amount, like cup add mug 350")
            }
            try invocation.arguments.finish()
            let amount = try amountMl(ml)
            let response = try invocation.client().call(
                WaterV1.AddCupRequest(cup: WaterV1.Cup(name: name, amountMl: amount, drink: drink), forMember: member))
            invocation.output(response) { "kept \(name): water-client log \(name)\n" + cupList(response.settings) }
        case "rm":
            guard let name = invocation.arguments.positional() else { throw UsageError("cup rm needs a cup's name") }
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.RemoveCupRequest(name: name, forMember: member))
            invocation.output(response) { "removed \(name)\n" + cupList(response.settings) }
        default:
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.GetSettingsRequest(forMember: member))
            invocation.output(response) { cupText(response.settings) + "\n" + cupList(response.settings) }
        }
    }

    /// The named cups, one a line: "mug     350 ml" or "latte   250 ml milk".
    private static func cupList(_ settings: WaterV1.Settings?) -> String {
        let cups = settings?.cups ?? []
        guard !cups.isEmpty else { return "no named cups yet: water-client cup add mug 350" }
        let width = cups.map(\.name.count).max() ?? 0
        return cups.map { cup in
            let name = cup.name.terminalSafe
            return name + String(repeating: " ", count: max(0, width - name.count)) + "  \(cup.amountMl) ml"
                + (cup.drink.isEmpty ? "" : " \(cup.drink.terminalSafe)")
        }.joined(separator: "\n")
    }

    private static func cupText(_ settings: WaterV1.Settings?) -> String {
        let usual = settings?.usualCupMl ?? 0
        let cups = (settings?.quickCupsMl ?? []).map { $0 == usual ? Format.bold("\($0)") : "\($0)" }
        let drink = settings.map { $0.usualDrink.isEmpty ? "" : " of \($0.usualDrink.terminalSafe)" } ?? ""
        return "usual cup: \(usual) ml\(drink)\nquick cups: \(cups.joined(separator: " ")) ml"
    }

    /// An amount as typed, at every command that takes one (``TypedAmount``).
    static func amountMl(_ text: String) throws(UsageError) -> Int32 {
        guard let value = TypedAmount.millilitres(text) else {
            throw UsageError("an amount is \(TypedAmount.forms); got \"\(text)\"")
        }
        return value
    }

    /// Sets the member's zone; a name the server does not know is answered with the one nearest
    /// to it (the server's hint is one example, the same for every name).
    private static func setZone(_ zone: String, _ client: WaterClient) throws -> WaterV1.SetTimeZoneResponse {
        do {
            return try client.call(WaterV1.SetTimeZoneRequest(timeZone: zone))
        } catch {
            guard error.code == .invalidArgument, error.violations.contains(where: { $0.field == "time_zone" }),
                let near = Suggestion.closestZone(to: zone, among: ZoneInfo.system.names())
            else { throw error }
            throw WaterError(
                .invalidArgument,
                "\(zone.terminalSafe) is not a time zone the server knows; did you mean \(near)? (water-client zone \(near))",
                violations: error.violations)
        }
    }

    /// A drink's amount as typed: 1 to 2000 ml. (0 means "the usual cup" on the wire, so `log 0`
    /// must be refused here rather than sent.)
    static func drinkMl(_ text: String) throws -> Int32 {
        let value = try amountMl(text)
        guard WaterLimits.amountMillilitres.contains(value) else {
            throw WaterError(
                .invalidArgument,
                "a drink must be between 1 and 2000 ml, got \(value)"
                    + (value > 2000 ? " (log it as two drinks if it really was)" : ""))
        }
        return value
    }

    /// A full id, or a start of the short id that `today` and `history --entries` show (or of
    /// the full id), looked up among the last month's drinks, then the last year's. A start
    /// that fits several drinks lists them: the person picks one.
    /// Away from the server, the drinks this computer knows: today's, and those waiting in the outbox.
    private static func resolve(
        _ text: String, _ client: WaterClient?, _ invocation: Invocation, zone: MemberTimeZone, for member: String
    ) throws -> String {
        if RecordID(text) != nil { return text }
        let typed = text.lowercased().filter { $0 != "-" }
        guard typed.count >= 4, typed.allSatisfy(\.isHexDigit) else {
            throw UsageError(
                "an entry id is at least 4 of the hex digits today or history --entries shows, got \"\(text)\"")
        }
        func fits(_ entry: WaterV1.WaterEntry) -> Bool {
            let hex = entry.entryID.lowercased().filter { $0 != "-" }
            return Format.shortID(entry.entryID).hasPrefix(typed) || hex.hasPrefix(typed)
        }
        var matches: [WaterV1.WaterEntry] = []
        if let client {
            for days: UInt32 in [31, 366] where matches.isEmpty {
                matches = try client.call(
                    WaterV1.GetHistoryRequest(days: days, includeEntries: true, forMember: member)
                ).entries.filter(fits)
            }
        } else {
            // This computer knows only the caller's drinks by short id.
            try invocation.refuseOffline(for: member)
            let queued = invocation.waitingWrites().compactMap { write -> WaterV1.WaterEntry? in
                guard case .log(let request) = write.request else { return nil }
                return WaterV1.WaterEntry(
                    entryID: request.entryID, amountMl: request.amountMl, atUnixMs: request.atUnixMs)
            }
            matches = ((invocation.cachedStatus()?.entries ?? []) + queued).filter(fits)
        }
        // An id that names nothing, or too little of one, is bad data (65), not a usage mistake (64).
        guard matches.count == 1 else {
            let none =
                client == nil
                ? "this computer knows no drink whose id starts with \(text): the server cannot be reached, and "
                    + "only today's drinks and those waiting to be sent are known here; give the full id"
                : "no drink of the last year has an id starting with \(text) "
                    + "(water-client history --days 366 --entries lists them)"
            throw WaterError(
                matches.isEmpty ? .notFound : .invalidArgument,
                matches.isEmpty
                    ? none
                    : "\(text) fits \(matches.count) drinks; give more of the id:\n"
                        + matches.prefix(10).map { "  " + Format.entry($0, zone: zone) + "  " + $0.date }.joined(
                            separator: "\n") + (matches.count > 10 ? "\n  ..." : ""))
        }
        return matches[0].entryID
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
}
