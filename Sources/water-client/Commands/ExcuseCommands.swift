import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `excuse [DAY | --from DAY --to DAY] [--reason R] [--for NAME]` and `unexcuse DAY...`: days
/// that leave the board's average and break no streak. Both work away from the server (the
/// outbox keeps them).
enum ExcuseCommands {
    enum Excuse: ClientCommand {
        static let spec = CommandSpec(
            "excuse", "[DAY]", summary: "excuse a day or days (sick, travelling) from the board and streaks",
            details: """
                Excuses DAY (today, yesterday or YYYY-MM-DD; default today) or --from DAY --to DAY: an
                excused day leaves the board's average, neither counts for nor breaks a streak, and gets
                no nudges. At most 14 days in any 28, from a year back to 28 days ahead. Admins may
                excuse another member's days (--for), or everyone's at once (--household: the family
                is on holiday; checked for every member first, so nothing is written when one of
                them would pass 14 in 28; needs the server). Works away from the server otherwise:
                the outbox keeps it.
                """,
            options: [
                OptionSpec("from", "DAY", "the first day of a range"),
                OptionSpec("to", "DAY", "the last day of a range (at most 14 days)"),
                OptionSpec("reason", "sick|travel|TEXT", "why (shown on the board and in --explain)"),
                OptionSpec("household", nil, "every member's days (admins): the family is on holiday"),
                forOption,
            ],
            examples: [
                "excuse --reason sick", "excuse --from 2026-12-07 --to 2026-12-11 --reason travel",
                "excuse --from 2026-12-24 --to 2026-12-31 --household --reason holiday",
            ])

        static func run(_ invocation: inout Invocation) throws {
            let fromOption = try invocation.arguments.option("from")
            let toOption = try invocation.arguments.option("to")
            let reason = try invocation.arguments.option("reason") ?? ""
            let household = invocation.arguments.flag("household")
            let member = try invocation.forMember()
            let dayArgument = invocation.arguments.positional()
            try invocation.arguments.finish()
            guard dayArgument == nil || (fromOption == nil && toOption == nil) else {
                throw UsageError("excuse takes a DAY or --from DAY --to DAY, not both")
            }
            guard (fromOption == nil) == (toOption == nil) else { throw UsageError("--from and --to go together") }
            guard !household || member.isEmpty else { throw UsageError("--household is everyone: leave out --for") }
            if household {
                return try excuseHousehold(&invocation, from: fromOption ?? dayArgument, to: toOption, reason: reason)
            }
            let client = try invocation.reachableClient()
            let zone = try invocation.zone(for: member, client)
            let from = try day(fromOption ?? dayArgument, zone: zone)
            let to = try toOption.map { (text) throws(UsageError) in try day(text, zone: zone) } ?? ""
            let request = WaterV1.ExcuseDaysRequest(fromDate: from, toDate: to, reason: reason, forMember: member)
            guard let response = try invocation.callOrQueue(client, request, queued: .excuse(request)) else { return }
            remember(response.days, member: member, &invocation)
            invocation.output(response) { lines("excused", response.days) }
        }
    }

    enum Unexcuse: ClientCommand {
        static let spec = CommandSpec(
            "unexcuse", "DAY...", summary: "take the excuse of days back",
            details: "Takes the excuse of each DAY back (today, yesterday or YYYY-MM-DD); a day not excused stays so.",
            options: [forOption],
            examples: ["unexcuse today", "unexcuse 2026-12-07 2026-12-08"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            var texts: [String] = []
            while let text = invocation.arguments.positional() { texts.append(text) }
            try invocation.arguments.finish()
            guard !texts.isEmpty else { throw UsageError("unexcuse needs at least one DAY") }
            let client = try invocation.reachableClient()
            let zone = try invocation.zone(for: member, client)
            var dates: [String] = []
            for text in texts { dates.append(try day(text, zone: zone)) }
            let request = WaterV1.UnexcuseDaysRequest(dates: dates, forMember: member)
            guard let response = try invocation.callOrQueue(client, request, queued: .unexcuse(request)) else { return }
            remember(response.days, member: member, &invocation)
            invocation.output(response) { lines("not excused", response.days) }
        }
    }

    /// `excuse --household`: the same days for everyone, read in this terminal's member's zone;
    /// online only (one call that checks every member before it writes).
    private static func excuseHousehold(
        _ invocation: inout Invocation, from fromText: String?, to toText: String?, reason: String
    ) throws {
        let client = try invocation.client()
        let zone = try invocation.zone(for: "", client)
        let from = try day(fromText, zone: zone)
        let to = try toText.map { (text) throws(UsageError) in try day(text, zone: zone) } ?? ""
        let response = try client.call(WaterV1.ExcuseHouseholdRequest(fromDate: from, toDate: to, reason: reason))
        let me = invocation.session()?.username ?? ""
        if let mine = response.members.first(where: { $0.username == me }) {
            remember(mine.days, member: "", &invocation)
        }
        invocation.output(response) {
            response.members.map { member in
                "\(member.username.terminalSafe): "
                    + lines("excused", member.days).split(separator: "\n").joined(separator: ", ")
            }.joined(separator: "\n")
        }
    }

    /// The member's own days go into what this computer remembers (today, prompt).
    private static func remember(_ days: [WaterV1.DaySummary], member: String, _ invocation: inout Invocation) {
        guard member.isEmpty || member == invocation.session()?.username else { return }
        invocation.updateCache { cache in days.forEach { cache.record(day: $0, now: UnixTime.nowMilliseconds()) } }
    }

    private static func lines(_ what: String, _ days: [WaterV1.DaySummary]) -> String {
        days.map { day in
            "\(what) \(Format.dayName(day.date))"
                + (day.excused && !day.excusedReason.isEmpty ? " (\(day.excusedReason.terminalSafe))" : "")
        }.joined(separator: "\n")
    }

    /// A day as the API takes it: today, yesterday or YYYY-MM-DD, in the member's zone.
    private static func day(_ text: String?, zone: MemberTimeZone) throws(UsageError) -> String {
        let now = UnixTime.nowMilliseconds()
        guard let day = When.day(text, now: now, zone: zone) else {
            throw UsageError("a day is today, yesterday or a date like 2026-11-30, got \(text ?? "")")
        }
        return day.isEmpty ? zone.date(atUnixMilliseconds: now).description : day
    }
}
