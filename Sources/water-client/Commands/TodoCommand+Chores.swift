import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `todo mine | skip ID | history [ID]`: the chores on the household's list.
extension TodoCommand {
    enum Mine: ClientCommand {
        static let spec = CommandSpec(
            "todo mine", summary: "your chores today and this week, overdue ones first",
            details: """
                Lists the chores that are yours (for you, or your turn in a rotation) due by the end of the
                household's week, overdue ones included, numbered as todo ls numbers them.
                """,
            examples: ["todo mine"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let client = try invocation.client()
            let all = try client.call(WaterV1.ListTodosRequest()).items
            let response = try client.call(WaterV1.ListTodosRequest(mine: true))
            // Numbered as the whole list, which todo done N reads.
            invocation.updateCache { $0.record(listShown: all, on: terminal) }
            let numbers = response.items.map { item in (all.firstIndex { $0.itemID == item.itemID } ?? 0) + 1 }
            invocation.output(response) {
                response.items.isEmpty
                    ? "nothing is yours this week" : render(response.items, numbers: numbers)
            }
        }
    }

    enum Skip: ClientCommand {
        static let spec = CommandSpec(
            "todo skip", "ID", summary: "move a recurring chore to its next occurrence, nobody doing it",
            details: """
                Moves a chore that comes back to its next occurrence without anyone doing this one (the
                history keeps the skip); a rotation's turn stays with the member whose turn it was. ID as
                for todo done. Until the next due day it is done for now: skipped again, nothing changes.
                Away from the server it waits in the outbox, naming the occurrence it skips.
                """,
            examples: ["todo skip 2"])

        static func run(_ invocation: inout Invocation) throws {
            let client = try invocation.reachableClient()
            let (id, item) = try resolve(
                try required(&invocation, "todo skip needs an item"), "skip", client, invocation)
            try invocation.arguments.finish()
            let request = WaterV1.SkipTodoRequest(itemID: id, dueDay: item?.dueDay ?? "")
            if let item, try isDoneForNow(item, client, invocation) {
                let message = "nothing changed: \(item.text.terminalSafe) is done for now\(choreLine(item))"
                return invocation.output(WaterV1.SkipTodoResponse(item: item)) { message }
            }
            try sendChange(request, queued: .todoSkip(request), client, invocation, item: \.item) { after in
                "skipped: \(after.text.terminalSafe); next\(choreLine(after))"
            }
        }
    }

    enum History: ClientCommand {
        static let spec = CommandSpec(
            "todo history", "[ID]", summary: "who did which chore and when, newest first",
            details: """
                Shows the chores done and skipped, newest first: the occurrence's due day, who did it, whose
                turn it was and who marked it (a guardian for a child). ID (as for todo done) shows one
                item's. Kept for 400 days.
                """,
            examples: ["todo history", "todo history 2"])

        static func run(_ invocation: inout Invocation) throws {
            let client = try invocation.client()
            let id = try invocation.arguments.positional().map { try resolve($0, "history", client, invocation).id }
            try invocation.arguments.finish()
            let response = try client.call(WaterV1.ListTodoHistoryRequest(itemID: id ?? ""))
            let (_, zone) = try householdCalendar(client, invocation)
            invocation.output(response) {
                guard !response.entries.isEmpty else { return "no chore has been done yet" }
                return response.entries.map { line($0, zone: zone) }.joined(separator: "\n")
            }
        }

        static func line(_ entry: WaterV1.TodoCompletion, zone: MemberTimeZone) -> String {
            let text = entry.text.isEmpty ? "(a removed item \(Format.shortID(entry.itemID)))" : entry.text.terminalSafe
            let turn =
                entry.turnOf.isEmpty || entry.turnOf == entry.doneBy ? "" : " (\(entry.turnOf.terminalSafe)'s turn)"
            let what =
                entry.skipped
                ? "skipped by \(entry.markedBy.terminalSafe)\(turn)"
                : "done by \(entry.doneBy.terminalSafe)\(turn)"
                    + (entry.markedBy.isEmpty ? "" : ", marked by \(entry.markedBy.terminalSafe)")
            let at = zone.date(atUnixMilliseconds: entry.atUnixMs)
            return
                "\(entry.dueDay)  \(text)  \(what)  \(Format.dim("on \(at) \(Format.clock(entry.atUnixMs, zone: zone))"))"
        }
    }

    /// What a chore's row adds: due day and time, how it recurs, whose it is, overdue.
    static func choreLine(_ item: WaterV1.TodoItem) -> String {
        var parts: [String] = []
        if !item.dueDay.isEmpty {
            parts.append("due \(Format.dayName(item.dueDay))\(item.dueTime.isEmpty ? "" : " \(item.dueTime)")")
        }
        if !item.every.isEmpty { parts.append("every \(item.every)") }
        if !item.assignee.isEmpty { parts.append("for \(item.assignee.terminalSafe)") }
        if !item.rotation.isEmpty { parts.append("turns \(item.rotation.map(\.terminalSafe).joined(separator: ","))") }
        guard !parts.isEmpty else { return "" }
        return " (\(parts.joined(separator: ", ")))" + (item.overdue ? " " + Format.bold("OVERDUE") : "")
    }

    /// A chore that comes back, done or skipped for the occurrence before, and not due until a
    /// day after today on the household's calendar: typed again, done or skip changes nothing.
    /// Away from the server it is never so: the list as this computer last saw it names the
    /// occurrence, and a second done or skip of it counts once.
    static func isDoneForNow(_ item: WaterV1.TodoItem, _ client: WaterClient?, _ invocation: Invocation) throws
        -> Bool
    {
        guard let client, !item.every.isEmpty, !item.lastDoneDay.isEmpty, let due = LocalDate(item.dueDay) else {
            return false
        }
        let (now, zone) = try householdCalendar(client, invocation)
        return due > zone.date(atUnixMilliseconds: now)
    }

    /// The household's calendar: now and its time zone as the server said (the board's);
    /// away from the server, this computer's clock and the member's zone.
    static func householdCalendar(_ client: WaterClient?, _ invocation: Invocation) throws -> (
        Int64, MemberTimeZone
    ) {
        guard let client else { return (UnixTime.nowMilliseconds(), try invocation.memberZone(nil)) }
        let server = client.connection.server
        let zone = ZoneInfo.system.zone(named: server.householdTimeZone) ?? .utc
        return (server.serverTimeUnixMs == 0 ? UnixTime.nowMilliseconds() : server.serverTimeUnixMs, zone)
    }
}
