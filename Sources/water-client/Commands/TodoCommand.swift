import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `todo add TEXT | ls | done ID | undone ID | rm ID | mv ID POSITION`: the household's shared list.
/// ID is the item's number in `todo ls`, its short id, or its full id.
enum TodoCommand {
    enum Add: ClientCommand {
        static let spec = CommandSpec(
            "todo add", "TEXT", summary: "add an item or a chore to the household's shared list",
            details: """
                Adds an item (longer than 3 characters) at the bottom of the household's shared list. With
                --due it is a chore, due that day (and time) on the household's calendar; with --every it
                comes back once done or skipped, counted from its due day (a Monday chore stays a Monday
                chore); --for gives it to one member, --rotate to each member in turn (an excused or
                removed member's turn passes to the next). --every alone is due from today.
                """,
            options: [
                OptionSpec("due", "WHEN", "today, tomorrow, mon, 2026-12-07, maybe with a time: \"fri 18:00\""),
                OptionSpec(
                    "every", "RULE", "day, N days, week, N weeks, month, N months, or weekdays: mon,thu"),
                OptionSpec("for", "MEMBER", "the member whose chore it is"),
                OptionSpec("rotate", "NAMES", "members who take turns, first one first: ann,ben,kim"),
            ],
            examples: [
                "todo add \"buy water filters\"", "todo add \"bins out\" --due mon --every week --rotate ann,ben,kim",
                "todo add \"water the plants\" --every mon,thu --for kim",
            ])

        static func run(_ invocation: inout Invocation) throws {
            let due = try invocation.arguments.option("due")
            let every = try invocation.arguments.option("every") ?? ""
            // Whose chore, the caller too (not "act for", where the caller's own name means no one else).
            let member = try invocation.arguments.option("for") ?? ""
            let rotate = try invocation.arguments.option("rotate").map { $0.split(separator: ",").map(String.init) }
            var words: [String] = []
            while let word = invocation.arguments.positional() { words.append(word) }
            try invocation.arguments.finish()
            guard !words.isEmpty else {
                throw UsageError("todo add needs the text, e.g. todo add \"buy water filters\"")
            }
            let client = try invocation.reachableClient()
            var request = WaterV1.AddTodoRequest(
                itemID: invocation.newID(), text: words.joined(separator: " "), every: every, forMember: member,
                rotate: rotate ?? [])
            if let due {
                let (now, zone) = try householdCalendar(client, invocation)
                guard let parsed = DueWhen.parse(due, now: now, zone: zone) else {
                    throw UsageError(
                        "--due takes today, tomorrow, a weekday (mon), YYYY-MM-DD, maybe with a time (fri 18:00); got \"\(due.terminalSafe)\""
                    )
                }
                request.due = parsed
            }
            try sendChange(request, queued: .todoAdd(request), client, invocation, item: \.item) { item in
                "added: \(item.text.terminalSafe)\(choreLine(item))"
            }
        }
    }

    enum List: ClientCommand {
        static let spec = CommandSpec(
            "todo ls", summary: "the household's shared list, numbered from the top",
            examples: ["todo ls"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.ListTodosRequest())
            invocation.updateCache { $0.record(listShown: response.items, on: terminal) }
            invocation.output(response) { render(response.items) }
        }
    }

    enum Done: ClientCommand {
        static let spec = CommandSpec(
            "todo done", "ID", summary: "mark an item done (safe to repeat)",
            details: """
                Marks an item done; ID is its number as todo ls last showed it on this terminal (refused,
                with the list now, when another item is there now), or its id. Repeating it changes nothing.
                A chore that comes back is due again at its next occurrence, and the history keeps who did
                it; whoever does it gets the credit, and a rotation goes on after the member whose turn it
                was. Until that next due day it is done for now: done again, nothing changes (--early does
                the next one).
                """,
            options: [
                OptionSpec("for", "MEMBER", "who did it: a child of yours (the history keeps that you marked it)"),
                OptionSpec("early", nil, "do a chore's next occurrence before its due day"),
            ],
            examples: ["todo done 2", "todo done 3 --for kim"])

        static func run(_ invocation: inout Invocation) throws {
            try setDone(true, &invocation)
        }
    }

    enum Undone: ClientCommand {
        static let spec = CommandSpec(
            "todo undone", "ID", summary: "reopen an item (safe to repeat)",
            details: """
                Reopens an item; ID is its number as todo ls last showed it on this terminal (refused, with
                the list now, when another item is there now), or its id. Repeating it changes nothing. For
                a chore, the occurrence done (or skipped) last is due again and leaves the history.
                """,
            examples: ["todo undone 2"])

        static func run(_ invocation: inout Invocation) throws {
            try setDone(false, &invocation)
        }
    }

    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "todo rm", "ID", summary: "remove an item",
            details: """
                Removes an item; ID is its number as todo ls last showed it on this terminal, or its id.
                Typed twice, the second is refused (another item is at that number now).
                """,
            examples: ["todo rm 3"])

        static func run(_ invocation: inout Invocation) throws {
            let client = try invocation.client()
            let id = try resolve(try required(&invocation, "todo rm needs an item"), "rm", client, invocation).id
            try invocation.arguments.finish()
            let response = try client.call(WaterV1.DeleteTodoRequest(itemID: id))
            invocation.output(response) { "removed: \((response.item?.text ?? "").terminalSafe)" }
        }
    }

    enum Move: ClientCommand {
        static let spec = CommandSpec(
            "todo mv", "ID POSITION", summary: "move an item (POSITION 1 is the top)",
            examples: ["todo mv 4 1"])

        static func run(_ invocation: inout Invocation) throws {
            let client = try invocation.client()
            let id = try resolve(
                try required(&invocation, "todo mv needs an item and a position"), "mv", client, invocation
            ).id
            let positionText = try required(&invocation, "todo mv needs a position (1 is the top)")
            try invocation.arguments.finish()
            guard let position = UInt32(positionText), position >= 1 else {
                throw UsageError("a position is 1 for the top, 2 for the next, ...; got \(positionText)")
            }
            // Positions as `todo ls` numbers them, 1 to the length of the list.
            let count = try client.call(WaterV1.ListTodosRequest()).items.count
            guard position <= count else {
                throw WaterError(.invalidArgument, "the position must be between 1 and \(count), got \(position)")
            }
            let response = try client.call(WaterV1.MoveTodoRequest(itemID: id, position: position - 1))
            invocation.updateCache { $0.record(listShown: response.items, on: terminal) }
            invocation.output(response) { render(response.items) }
        }
    }

    /// `todo done` and `todo undone`: set, never toggled, so two people marking the same item
    /// done leave it done.
    private static func setDone(_ done: Bool, _ invocation: inout Invocation) throws {
        let action = done ? "done" : "undone"
        let member = done ? try invocation.forMember() : ""
        let early = done && invocation.arguments.flag("early")
        let client = try invocation.reachableClient()
        let (id, item) = try resolve(
            try required(&invocation, "todo \(action) needs an item"), action, client, invocation)
        try invocation.arguments.finish()
        // The occurrence meant travels with the request: sent again from the outbox, or retried,
        // it counts once.
        let request = WaterV1.SetTodoDoneRequest(
            itemID: id, done: done, dueDay: done ? item?.dueDay ?? "" : "", forMember: member)
        if done, let item, !early, try isDoneForNow(item, client, invocation) {
            // Typed twice, the second finds it done for now and changes nothing.
            let message =
                "nothing changed: \(item.text.terminalSafe) is done for now\(choreLine(item)); "
                + "todo done \(Format.shortID(id)) --early does that one now"
            invocation.output(WaterV1.SetTodoDoneResponse(item: item)) { message }
            return
        }
        try sendChange(request, queued: .todoDone(request), client, invocation, item: \.item) { after in
            if done, !after.every.isEmpty {
                return "done: \(after.text.terminalSafe); next\(choreLine(after))"
            }
            return (after.done ? "done: " : "not done: ") + after.text.terminalSafe + choreLine(after)
        }
    }

    /// Sends a change to one item, or queues it away from the server, and shows the item as the
    /// reply has it in `words` (nothing when it was queued: the outbox said so).
    static func sendChange<Request: UnaryRPCRequest>(
        _ request: Request, queued: QueuedWrite, _ client: WaterClient?, _ invocation: Invocation,
        item: (Request.Response) -> WaterV1.TodoItem?, _ words: (WaterV1.TodoItem) -> String
    ) throws {
        guard let response = try invocation.callOrQueue(client, request, queued: queued) else { return }
        invocation.output(response) { words(item(response) ?? WaterV1.TodoItem()) }
    }

    static func render(_ items: [WaterV1.TodoItem], numbers: [Int]? = nil) -> String {
        guard !items.isEmpty else {
            return "the household's list is empty: add something with water-client todo add \"buy water filters\""
        }
        return items.enumerated().map { index, item in
            let box = item.done ? Format.green("[x]") : "[ ]"
            // Every text here is a member's (or a server's): shown with its control characters
            // neutralised, whatever an older server let in.
            let who = item.done ? "done by \(item.completedBy.terminalSafe)" : "added by \(item.addedBy.terminalSafe)"
            let number = numbers?[index] ?? index + 1
            return
                "\(Format.pad("\(number).", 3)) \(box) \(item.text.terminalSafe)\(choreLine(item))  \(Format.dim("\(Format.shortID(item.itemID))  \(who)"))"
        }.joined(separator: "\n")
    }

    static func required(_ invocation: inout Invocation, _ message: String) throws(UsageError) -> String {
        guard let word = invocation.arguments.positional() else { throw UsageError(message) }
        return word
    }

    /// The terminal this command prints on (its device), which list numbers are read for.
    static var terminal: String {
        (ttyname(1) ?? ttyname(0)).map { String(cString: $0) } ?? ""
    }

    /// A list number, a short id or a full id. A number is read on the list as this terminal
    /// last showed it (`todo ls`, `todo mv`, or the list a number was last read on): when the
    /// item there is not the one there now (another member moved or removed one, or this
    /// `todo rm 4` is typed a second time), nothing is done and the list as it is now is shown,
    /// to be read again. Away from the server, the list as this terminal last showed it (else as
    /// this computer last heard it).
    static func resolve(
        _ text: String, _ action: String, _ client: WaterClient?, _ invocation: Invocation
    ) throws -> (id: String, item: WaterV1.TodoItem?) {
        let items: [WaterV1.TodoItem]
        if let client {
            items = try client.call(WaterV1.ListTodosRequest()).items
        } else {
            guard let cached = invocation.cachedStatus()?.todos, !cached.isEmpty else {
                guard RecordID(text) == nil else { return (text, nil) }
                throw WaterError(
                    .unavailable, "the server cannot be reached, and this computer has not seen the list yet")
            }
            items = cached
        }
        if RecordID(text) != nil { return (text, items.first { $0.itemID == text }) }
        guard text.count <= 3, let number = Int(text) else {
            if client != nil { invocation.updateCache { $0.todos = items } }
            guard let item = items.first(where: { Format.shortID($0.itemID) == text.lowercased() }) else {
                throw WaterError(.notFound, "no item on the list is \(text); see water-client todo ls")
            }
            return (item.itemID, item)
        }
        let shown = invocation.cachedStatus()?.listShown(on: terminal)
        let index = number - 1
        guard client != nil else {
            let ids = shown ?? items.map(\.itemID)
            guard ids.indices.contains(index) else { throw noItem(number) }
            return (ids[index], items.first { $0.itemID == ids[index] })
        }
        let current = items.map(\.itemID)
        guard current.indices.contains(index) else { throw noItem(number) }
        if let shown, shown.indices.contains(index), shown[index] != current[index] {
            invocation.updateCache { $0.record(listShown: items, on: terminal) }
            let refusal =
                "the list has changed since this terminal showed it: \(number) is another item now; nothing was changed"
            // The list as it is now, to be read again (with --json, todo ls prints it).
            guard !invocation.json else { throw WaterError(.aborted, refusal) }
            Terminal.error(
                "water-client: \(refusal). The list now:\n\(render(items))\n"
                    + "water-client todo \(action) N takes these numbers")
            throw ReportedFailure(exitCode: .dataError)
        }
        // The numbers were read on this list: a repeat finds the item gone or moved, and is
        // refused, rather than acting on the one that took its place.
        invocation.updateCache { cache in
            if shown == nil { cache.record(listShown: items, on: terminal) } else { cache.todos = items }
        }
        return (current[index], items[index])
    }

    private static func noItem(_ number: Int) -> WaterError {
        WaterError(.notFound, "the list has no item \(number); see water-client todo ls")
    }
}
