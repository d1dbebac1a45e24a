import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Todo`: the household's one shared list; every member may change it. Chores (items
/// with a due day) are due on the household's calendar (`zone`, the board's).
struct TodoService: Service {
    let archives: ArchiveAccess
    /// Where the list is read and encoded (up to 500 items of 1 KiB), off the loop.
    let reads: ReadPool
    let zone: MemberTimeZone

    func register(in router: inout Router) {
        router.onLoop(.member, addTodo, toggleTodo, setTodoDone, skipTodo, deleteTodo, moveTodo, importTodos)
        router.offLoop(.member, pool: reads, listTodos, listTodoHistory, exportTodos)
    }

    /// Adds an item at the end; the same item id again is a replay and changes nothing.
    func addTodo(_ request: WaterV1.AddTodoRequest, _ call: CallContext) throws(WaterError) -> WaterV1.AddTodoResponse {
        let view = archives.todoView(now: call.now, zone: zone)
        let assignee = try request.forMember.isEmpty ? nil : view.member(named: request.forMember, field: "for_member")
        var rotation: [UInt64] = []
        for name in request.rotate { rotation.append(try view.member(named: name, field: "rotate")) }
        let chore: Chore?
        do {
            chore = try Chore.validated(
                due: request.due, every: request.every, assignee: assignee, rotation: rotation,
                today: view.household.today)
        } catch {
            throw WaterError(error)
        }
        return try changeItem(request.itemID, call, view) { list, id throws(DomainError) in
            try list.validateAdd(id: id, text: request.text, chore: chore, by: call.account.id, now: call.now)
        } reply: {
            WaterV1.AddTodoResponse(item: $0)
        }
    }

    func toggleTodo(_ request: WaterV1.ToggleTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ToggleTodoResponse
    {
        let view = archives.todoView(now: call.now, zone: zone)
        return try changeItem(request.itemID, call, view) { list, id throws(DomainError) in
            guard list.item(id)?.chore?.due == nil else {
                let done = list.item(id)?.isDone == true
                return done
                    ? try list.validateReopen(id: id, by: call.account.id, now: call.now)
                    : try list.validateDone(
                        id: id, occurrence: nil, doneBy: call.account.id, markedBy: nil, household: view.household)
            }
            return try list.validateToggle(id: id, by: call.account.id, now: call.now)
        } reply: {
            WaterV1.ToggleTodoResponse(item: $0)
        }
    }

    /// Done or not done, idempotently (what `todo done` and `todo undone` send); for a chore,
    /// of the occurrence `due_day` names, and done by `for_member` when a guardian marks it.
    func setTodoDone(_ request: WaterV1.SetTodoDoneRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetTodoDoneResponse
    {
        let occurrence = try Self.occurrence(request.dueDay)
        let acting = try archives.actingFor(call, request.forMember)
        let view = archives.todoView(now: call.now, zone: zone)
        return try changeItem(request.itemID, call, view) { list, id throws(DomainError) in
            guard request.done else {
                return try list.validateReopen(id: id, by: call.account.id, now: call.now)
            }
            return try list.validateDone(
                id: id, occurrence: occurrence, doneBy: acting.member.id,
                markedBy: acting.madeBy == 0 ? nil : acting.madeBy, household: view.household)
        } reply: {
            WaterV1.SetTodoDoneResponse(item: $0)
        }
    }

    /// A recurring chore's next occurrence, with nobody doing this one.
    func skipTodo(_ request: WaterV1.SkipTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SkipTodoResponse
    {
        let occurrence = try Self.occurrence(request.dueDay)
        let view = archives.todoView(now: call.now, zone: zone)
        return try changeItem(request.itemID, call, view) { list, id throws(DomainError) in
            try list.validateSkip(id: id, occurrence: occurrence, by: call.account.id, household: view.household)
        } reply: {
            WaterV1.SkipTodoResponse(item: $0)
        }
    }

    private static func occurrence(_ text: String) throws(WaterError) -> LocalDate? {
        guard !text.isEmpty else { return nil }
        guard let day = LocalDate(text) else {
            throw WaterError.invalidField("due_day", "a due day is YYYY-MM-DD, got \(quotedPeerText(text))")
        }
        return day
    }

    /// Commits the change `decide` makes to the item `itemID` names (nil: none is needed, as
    /// for a replay) and replies with that item as it is after it, or, when the change removed
    /// it, as it was.
    private func changeItem<Response>(
        _ itemID: String, _ call: CallContext, _ view: TodoView,
        _ decide: (TodoList, RecordID) throws(DomainError) -> TodoMutation?,
        reply: (WaterV1.TodoItem?) -> Response
    ) throws(WaterError) -> Response {
        let id = try recordID(itemID, field: "item_id")
        return try archives.commitReturning(
            for: call,
            archives.household,
            { list in Decision(try decide(list, id).map { [$0] } ?? [], note: view.item(in: list, id: id)) },
            result: { list, before in reply(view.item(in: list, id: id) ?? before) })
    }

    /// Removes an item; the reply has it as it was.
    func deleteTodo(_ request: WaterV1.DeleteTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.DeleteTodoResponse
    {
        let view = archives.todoView(now: call.now, zone: zone)
        return try changeItem(request.itemID, call, view) { list, id throws(DomainError) in
            try list.validateDelete(id: id)
        } reply: {
            WaterV1.DeleteTodoResponse(item: $0)
        }
    }

    func moveTodo(_ request: WaterV1.MoveTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.MoveTodoResponse
    {
        let id = try recordID(request.itemID, field: "item_id")
        let view = archives.todoView(now: call.now, zone: zone)
        return try archives.commitReturning(
            for: call,
            archives.household, { list in Decision([try list.validateMove(id: id, to: Int(request.position))]) },
            result: { list, _ in WaterV1.MoveTodoResponse(items: view.items(list)) })
    }

    func listTodos(_ request: WaterV1.ListTodosRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListTodosResponse
    {
        let view = archives.todoView(now: call.now, zone: zone)
        let mine = request.mine ? call.account.id : nil
        return WaterV1.ListTodosResponse(items: try archives.read(archives.household) { view.items($0, mine: mine) })
    }

    func listTodoHistory(_ request: WaterV1.ListTodoHistoryRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListTodoHistoryResponse
    {
        let id = request.itemID.isEmpty ? nil : try recordID(request.itemID, field: "item_id")
        let view = archives.todoView(now: call.now, zone: zone)
        return try archives.read(archives.household) { list throws(WaterError) in
            if let id, list.item(id) == nil, list.completions(of: id).isEmpty {
                throw WaterError(.notFound, "there is no item \(id) on the list or in its history")
            }
            return WaterV1.ListTodoHistoryResponse(
                entries: list.completions(of: id).map { view.completion($0, in: list) })
        }
    }
}
