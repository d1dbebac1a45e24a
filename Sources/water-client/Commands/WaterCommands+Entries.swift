import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `undo`, `edit` and `rm`: changes to drinks already logged, found by their short id.
extension WaterCommands {
    /// Removes the drink logged last. Away from the server: a drink still waiting in the outbox
    /// is taken back from it; otherwise the newest drink of today this computer knows of is
    /// kept for removal by its id (never a blind "undo" sent later, which could reach further).
    enum Undo: ClientCommand {
        static let spec = CommandSpec(
            "undo", summary: "remove the drink you logged last",
            details: """
                Removes the drink you logged most recently, if it counts in this week; a week that is
                over is never changed by undo (remove such a drink with water-client rm ID).
                """,
            options: [forOption], examples: ["undo"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            try invocation.arguments.finish()
            guard let client = try invocation.reachableClient(for: member) else {
                // Undo away from the server works on this computer's own writes, the caller's.
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

    enum Edit: ClientCommand {
        static let spec = CommandSpec(
            "edit", "ID", summary: "change a drink's amount, time or both",
            details: """
                Changes a drink's amount, time or both. ID is the short id that today, history
                --entries and week --entries show (any unique start of it), or a full UUID.
                """,
            options: [
                forOption,
                OptionSpec("amount", "ML", "the new amount (1-2000 ml)"),
                OptionSpec("at", "WHEN", "the new time, like log --at"),
            ],
            examples: ["edit 9c1d2e3f --amount 300", "edit 9c1d --at \"yesterday 22:15\""])

        static func run(_ invocation: inout Invocation) throws {
            let amount = try invocation.arguments.option("amount").map { try drinkMl($0) }
            let at = try invocation.arguments.option("at")
            let member = try invocation.forMember()
            let idText = try invocation.arguments.onlyPositional(
                missing: "edit needs an entry id (see water-client today or history --entries)")
            guard amount != nil || at != nil else { throw UsageError("edit needs --amount ML, --at WHEN or both") }
            let client = try invocation.reachableClient()
            let zone = try invocation.zone(for: member, client)
            let time = try Invocation.time(at, zone: zone)
            let id = try resolve(idText, client, invocation, zone: zone, for: member)
            let request = WaterV1.EditWaterRequest(
                entryID: id, amountMl: amount ?? 0, atUnixMs: time, forMember: member)
            guard let response = try invocation.callOrQueue(client, request, queued: .edit(request)) else { return }
            let now = UnixTime.nowMilliseconds()
            invocation.updateCache(for: member) { cache in
                response.days.forEach { cache.record(day: $0, now: now) }
                response.entry.map { cache.record(entry: $0, now: now) }
            }
            invocation.output(response) {
                let entry = response.entry ?? WaterV1.WaterEntry()
                return "now \(entry.amountMl) ml \(Format.when(entry, zone: zone))\n"
                    + response.days.map { Format.daySummary($0) }.joined(separator: "\n")
            }
        }
    }

    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "rm", "ID", summary: "remove a drink",
            details: """
                Removes a drink. ID is the short id that today, history --entries and week --entries
                show (any unique start of it), or a full UUID; a start that fits several drinks lists them.
                """,
            options: [forOption], examples: ["rm 9c1d2e3f"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let idText = try invocation.arguments.onlyPositional(
                missing: "rm needs an entry id (see water-client today or history --entries)")
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
                    + "(water-client history --days 366 --entries\(Format.forHint(member)) lists them)"
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
