import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Todo`: the household's one shared list; every member may change it.
struct TodoService: Service {
    let archives: ArchiveAccess
    /// Where the list is read and encoded (up to 500 items of 1 KiB), off the loop.
    let reads: ReadPool

    func register(in router: inout Router) {
        router.onLoop(.member, addTodo)
        router.onLoop(.member, toggleTodo)
        router.onLoop(.member, setTodoDone)
        router.onLoop(.member, deleteTodo)
        router.onLoop(.member, moveTodo)
        router.offLoop(.member, pool: reads, listTodos)
    }

    /// Adds an item at the end; the same item id again is a replay and changes nothing.
    func addTodo(_ request: WaterV1.AddTodoRequest, _ call: CallContext) throws(WaterError) -> WaterV1.AddTodoResponse {
        try changeItem(request.itemID, call) { list, id throws(DomainError) in
            try list.validateAdd(id: id, text: request.text, by: call.account.id, now: call.now)
        } reply: {
            WaterV1.AddTodoResponse(item: $0)
        }
    }

    func toggleTodo(_ request: WaterV1.ToggleTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ToggleTodoResponse
    {
        try changeItem(request.itemID, call) { list, id throws(DomainError) in
            try list.validateToggle(id: id, by: call.account.id, now: call.now)
        } reply: {
            WaterV1.ToggleTodoResponse(item: $0)
        }
    }

    /// Done or not done, idempotently (what `todo done` and `todo undone` send).
    func setTodoDone(_ request: WaterV1.SetTodoDoneRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetTodoDoneResponse
    {
        try changeItem(request.itemID, call) { list, id throws(DomainError) in
            try list.validateSetDone(id: id, done: request.done, by: call.account.id, now: call.now)
        } reply: {
            WaterV1.SetTodoDoneResponse(item: $0)
        }
    }

    /// Commits the change `decide` makes to the item `itemID` names (nil: none is needed, as
    /// for a replay) and replies with that item as it is after it.
    private func changeItem<Response>(
        _ itemID: String, _ call: CallContext, _ decide: (TodoList, RecordID) throws(DomainError) -> TodoMutation?,
        reply: (WaterV1.TodoItem?) -> Response
    ) throws(WaterError) -> Response {
        let id = try recordID(itemID, field: "item_id")
        let names = archives.usernames()
        return try archives.commitReturning(
            for: call,
            archives.household, { list in Decision(try decide(list, id).map { [$0] } ?? []) },
            result: { list, _ in reply(Wire.todo(in: list, id: id, names: names)) })
    }

    func deleteTodo(_ request: WaterV1.DeleteTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.DeleteTodoResponse
    {
        let id = try recordID(request.itemID, field: "item_id")
        let names = archives.usernames()
        return try archives.commitReturning(
            for: call,
            archives.household,
            { list in Decision([try list.validateDelete(id: id)], note: Wire.todo(in: list, id: id, names: names)) },
            result: { _, removed in WaterV1.DeleteTodoResponse(item: removed) })
    }

    func moveTodo(_ request: WaterV1.MoveTodoRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.MoveTodoResponse
    {
        let id = try recordID(request.itemID, field: "item_id")
        let names = archives.usernames()
        return try archives.commitReturning(
            for: call,
            archives.household, { list in Decision([try list.validateMove(id: id, to: Int(request.position))]) },
            result: { list, _ in WaterV1.MoveTodoResponse(items: Wire.todos(list, names: names)) })
    }

    func listTodos(_ request: WaterV1.ListTodosRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListTodosResponse
    {
        let names = archives.usernames()
        return WaterV1.ListTodosResponse(items: try archives.read(archives.household) { Wire.todos($0, names: names) })
    }
}

extension Wire {
    static func todos(_ list: TodoList, names: [UInt64: String]) -> [WaterV1.TodoItem] {
        list.items.enumerated().map { todo($0.element, position: $0.offset, names: names) }
    }

    static func todo(in list: TodoList, id: RecordID, names: [UInt64: String]) -> WaterV1.TodoItem? {
        list.items.firstIndex { $0.id == id }.map { todo(list.items[$0], position: $0, names: names) }
    }

    /// An item as every reply carries it: a text an older server stored over today's bytes is
    /// cut, so that the list still fits a reply and the item can be seen and removed.
    static func todo(_ item: TodoItem, position: Int, names: [UInt64: String]) -> WaterV1.TodoItem {
        WaterV1.TodoItem(
            itemID: item.id.description, text: SharedText.todoText.bounded(item.text), done: item.isDone,
            position: UInt32(position),
            addedBy: Wire.maker(item.addedBy, names), addedAtUnixMs: item.addedAtUnixMilliseconds,
            completedBy: item.completedBy.map { Wire.maker($0, names) } ?? "",
            completedAtUnixMs: item.completedAtUnixMilliseconds ?? 0)
    }
}
