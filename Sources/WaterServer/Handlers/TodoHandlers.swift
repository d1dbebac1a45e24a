import WaterCore
import WaterProtocol

extension Router {
    /// `water.v1.Todo`: the household's one shared list; every member may change it.
    mutating func registerTodo() {
        unary(WaterV1.AddTodoRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.itemID, field: "item_id") } catch {
                return reply(.failure(error))
            }
            let names = context.memberNames()
            context.commit(
                context.store.household,
                { list in
                    (try list.validateAdd(id: id, text: request.text, by: context.account.id, now: context.now)).map {
                        [$0]
                    } ?? []
                },
                result: { list in
                    WaterV1.AddTodoResponse(item: Wire.todo(in: list, id: id, names: names))
                }, reply: reply)
        }

        unary(WaterV1.ToggleTodoRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.itemID, field: "item_id") } catch {
                return reply(.failure(error))
            }
            let names = context.memberNames()
            context.commit(
                context.store.household,
                { list in
                    [try list.validateToggle(id: id, by: context.account.id, now: context.now)]
                },
                result: { list in
                    WaterV1.ToggleTodoResponse(item: Wire.todo(in: list, id: id, names: names))
                }, reply: reply)
        }

        unary(WaterV1.DeleteTodoRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.itemID, field: "item_id") } catch {
                return reply(.failure(error))
            }
            let names = context.memberNames()
            var removed: WaterV1.TodoItem?
            context.commit(
                context.store.household,
                { list in
                    removed = Wire.todo(in: list, id: id, names: names)
                    return [try list.validateDelete(id: id)]
                }, result: { _ in WaterV1.DeleteTodoResponse(item: removed) }, reply: reply)
        }

        unary(WaterV1.MoveTodoRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.itemID, field: "item_id") } catch {
                return reply(.failure(error))
            }
            let names = context.memberNames()
            context.commit(
                context.store.household,
                { list in
                    [try list.validateMove(id: id, to: Int(request.position))]
                },
                result: { list in
                    WaterV1.MoveTodoResponse(items: Wire.todos(list, names: names))
                }, reply: reply)
        }

        immediate(WaterV1.ListTodosRequest.self, .member) { _, context throws(WaterError) in
            let names = context.memberNames()
            return WaterV1.ListTodosResponse(
                items: try context.read(context.store.household) { Wire.todos($0, names: names) })
        }
    }
}

extension CallContext {
    /// Usernames by member id, for "added by" and "completed by".
    func memberNames() -> [UInt64: String] {
        (try? store.accounts.read { book in book.accounts.mapValues(\.username) }) ?? [:]
    }
}

extension Wire {
    static func todos(_ list: TodoList, names: [UInt64: String]) -> [WaterV1.TodoItem] {
        list.items.enumerated().map { todo($0.element, position: $0.offset, names: names) }
    }

    static func todo(in list: TodoList, id: RecordID, names: [UInt64: String]) -> WaterV1.TodoItem? {
        list.items.firstIndex { $0.id == id }.map { todo(list.items[$0], position: $0, names: names) }
    }

    static func todo(_ item: TodoItem, position: Int, names: [UInt64: String]) -> WaterV1.TodoItem {
        WaterV1.TodoItem(
            itemID: item.id.description, text: item.text, done: item.isDone, position: UInt32(position),
            addedBy: names[item.addedBy] ?? "a former member", addedAtUnixMs: item.addedAtUnixMilliseconds,
            completedBy: item.completedBy.map { names[$0] ?? "a former member" } ?? "",
            completedAtUnixMs: item.completedAtUnixMilliseconds ?? 0)
    }
}
