import WaterCore
import WaterProtocol
import WaterStore

/// `ExportTodos` and `ImportTodos`: the list and the history of who did what, out and back in,
/// by the members' usernames (an export read into another household finds its members by name).
extension TodoService {
    func exportTodos(_ request: WaterV1.ExportTodosRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ExportTodosResponse
    {
        let view = archives.todoView(now: call.now, zone: zone)
        return try archives.read(archives.household) { list in
            let from = min(Int(request.historyFrom), list.history.count)
            let page = list.history[from..<min(from + TodoList.completionsPerPart, list.history.count)]
            return WaterV1.ExportTodosResponse(
                items: from == 0 ? list.items.enumerated().map { view.exported($0.element, position: $0.offset) } : [],
                history: page.map { view.completion($0, in: nil) }, historyTotal: UInt32(list.history.count))
        }
    }

    func importTodos(_ request: WaterV1.ImportTodosRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ImportTodosResponse
    {
        let members = try archives.read(archives.accounts) { book in
            Dictionary(book.removedAccounts.values.map { ($0.username, $0.id) }) { $1 }
                .merging(book.accounts.values.map { ($0.username, $0.id) }) { $1 }
        }
        let reader = ExportReader(members: members, caller: call.account.id)
        var items: [TodoItem] = []
        for (index, item) in request.items.enumerated() { items.append(try reader.item(item, at: index)) }
        var completions: [TodoCompletion] = []
        for (index, completion) in request.history.enumerated() {
            completions.append(try reader.completion(completion, at: index))
        }
        return try archives.commitReturning(
            for: call, archives.household,
            { list in
                let mutations = try list.validateImport(items: items, completions: completions, now: call.now)
                return Decision(mutations, note: mutations)
            },
            result: { _, mutations in
                WaterV1.ImportTodosResponse(
                    itemsAdded: UInt32(mutations.count { if case .added = $0 { true } else { false } }),
                    completionsAdded: UInt32(
                        mutations.count { if case .completionImported = $0 { true } else { false } }))
            })
    }
}

/// An export's items and completions as the list holds them: names to member ids, texts to days.
private struct ExportReader {
    /// Every member's id by username, removed ones too (a current member wins a name).
    let members: [String: UInt64]
    let caller: UInt64

    func member(_ name: String, _ field: String) throws(WaterError) -> UInt64 {
        guard let id = members[name] else {
            let named = AccountBook.isValidUsername(name) ? name : "that"
            throw WaterError(.notFound, "\(field): there is no member called \(named), now or removed")
        }
        return id
    }

    func item(_ item: WaterV1.TodoItem, at index: Int) throws(WaterError) -> TodoItem {
        let path = "items.\(index)"
        let id = try recordID(item.itemID, field: "\(path).item_id")
        var chore: Chore?
        if !item.dueDay.isEmpty || !item.assignee.isEmpty {
            var rotation: [UInt64] = []
            for name in item.rotation { rotation.append(try member(name, "\(path).rotation")) }
            let assignee = try item.assignee.isEmpty ? nil : member(item.assignee, "\(path).assignee")
            do {
                chore = try Chore.validated(
                    due: item.dueTime.isEmpty || item.dueDay.isEmpty ? item.dueDay : "\(item.dueDay)T\(item.dueTime)",
                    every: item.every, assignee: rotation.isEmpty ? assignee : nil, rotation: rotation,
                    today: LocalDate(item.dueDay) ?? Chore.dueDays.lowerBound)
            } catch {
                throw WaterError(error)
            }
            if !rotation.isEmpty {
                guard let assignee, rotation.contains(assignee) else {
                    throw WaterError.invalidField("\(path).assignee", "a rotation's turn is one of its members")
                }
                chore?.assignee = assignee
            }
            if !item.lastDoneDay.isEmpty {
                guard let day = LocalDate(item.lastDoneDay) else {
                    throw WaterError.invalidField("\(path).last_done_day", "a day is YYYY-MM-DD")
                }
                chore?.lastDone = day
            }
        }
        return TodoItem(
            id: id, text: item.text, isDone: item.done,
            addedBy: (try? member(item.addedBy, "")) ?? caller, addedAtUnixMilliseconds: item.addedAtUnixMs,
            completedBy: item.done ? (try? member(item.completedBy, "")) ?? caller : nil,
            completedAtUnixMilliseconds: item.done ? item.completedAtUnixMs : nil, chore: chore)
    }

    func completion(_ completion: WaterV1.TodoCompletion, at index: Int) throws(WaterError) -> TodoCompletion {
        let path = "history.\(index)"
        guard let due = LocalDate(completion.dueDay) else {
            throw WaterError.invalidField("\(path).due_day", "a due day is YYYY-MM-DD")
        }
        guard completion.skipped == completion.doneBy.isEmpty else {
            throw WaterError.invalidField("\(path).done_by", "a completion is done by someone or skipped, not both")
        }
        return TodoCompletion(
            itemID: try recordID(completion.itemID, field: "\(path).item_id"), due: due,
            doneBy: try completion.doneBy.isEmpty ? nil : member(completion.doneBy, "\(path).done_by"),
            turnOf: try completion.turnOf.isEmpty ? nil : member(completion.turnOf, "\(path).turn_of"),
            markedBy: try completion.markedBy.isEmpty ? nil : member(completion.markedBy, "\(path).marked_by"),
            atUnixMilliseconds: completion.atUnixMs)
    }
}
