import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `log`: a drink, now or at a time, online or kept in the outbox.
extension WaterCommands {
    enum Log: ClientCommand {
        static let spec = CommandSpec(
            "log", "[AMOUNT] [DRINK]", summary: "log a drink (default: your usual cup of your usual drink, now)",
            details: """
                Logs AMOUNT of DRINK at WHEN (default: now). AMOUNT is whole millilitres (250 or
                250ml, 1-2000) or litres, decilitres and centilitres as a bottle says them, with a
                point or a comma (0.5l, 0,33l, "1,5 l", 330ML, 33 cl); without it, your usual cup.
                Millilitres are whole: 1.000 and 1,000 are refused as ambiguous. DRINK is one of the
                household's drinks (water-client drink ls) or one of your named cups (cup add; its
                amount, of its drink); without it, your usual drink (cup --drink). What it counts
                toward your goal is round(AMOUNT x the drink's factor). The reply names the day it
                counts on: your days follow your time zone (water-client zone). Away from the server
                the drink waits in the outbox; a named cup works there too once this computer has
                heard of it (cup add, cup ls, or logging it online).
                """,
            options: [
                forOption,
                OptionSpec("at", "WHEN", "when: 21:30, \"yesterday 21:30\", \"2026-11-30 21:30\" or ISO 8601"),
                OptionSpec("id", "UUID", "replay a drink with a known id: it is never counted twice"),
            ],
            examples: [
                "log", "log 200 tea", "log tea", "log mug", "log 33cl juice", "log 0,5l",
                "log 250 --at \"yesterday 21:30\"",
            ])

        static func run(_ invocation: inout Invocation) throws {
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
                entryID: id, amountMl: amount ?? 0, atUnixMs: time, drink: typed.name ?? "",
                usualDrink: typed.name == nil,
                forMember: member)
            // Kept for later, it is the drink as typed (its moment and usual cup fixed when kept).
            var queued = request
            if client == nil { try checkOffline(&queued, typedAmount: amount, invocation.cachedStatus()) }
            guard let response = try invocation.callOrQueue(client, request, queued: .log(queued)) else { return }
            invocation.updateCache(for: member) { cache in
                cache.record(day: response.day, now: now)
                response.entry.map { cache.record(entry: $0, now: now) }
                // `log mug` online teaches this computer the cup, for when the server is away.
                if let entry = response.entry, let name = typed.name {
                    cache.record(loggedAs: name, amountTyped: amount != nil, entry: entry, now: now)
                }
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
}
