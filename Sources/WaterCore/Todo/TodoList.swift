/// One item of the household's shared list: the seed's `TodoItem`, plus who added and who
/// completed it.
public struct TodoItem: Hashable, Sendable {
    public var id: RecordID
    public var text: String
    public var isDone: Bool
    public var addedBy: UInt64
    public var addedAtUnixMilliseconds: Int64
    /// Set while done.
    public var completedBy: UInt64?
    public var completedAtUnixMilliseconds: Int64?
    /// What makes it a chore (``Chore``); nil for the seed's plain item.
    public var chore: Chore?

    public init(
        id: RecordID, text: String, isDone: Bool = false, addedBy: UInt64, addedAtUnixMilliseconds: Int64,
        completedBy: UInt64? = nil, completedAtUnixMilliseconds: Int64? = nil, chore: Chore? = nil
    ) {
        self.chore = chore
        self.id = id
        self.text = text
        self.isDone = isDone
        self.addedBy = addedBy
        self.addedAtUnixMilliseconds = addedAtUnixMilliseconds
        self.completedBy = completedBy
        self.completedAtUnixMilliseconds = completedAtUnixMilliseconds
    }
}

/// A change to the todo list, as the journal records it. Each holds final values (done or
/// not, the target position), so it applies the same way however often it is replayed.
public enum TodoMutation: Hashable, Sendable {
    case added(TodoItem)
    case completionSet(RecordID, done: Bool, by: UInt64, atUnixMilliseconds: Int64)
    case deleted(RecordID)
    case moved(RecordID, toPosition: Int)
    /// A chore's occurrence done or skipped: the completion joins the history, and the item is
    /// due `next` with the rotation's turn at `nextTurn` (nil `next`: it was due once, and is
    /// done now).
    case occurrenceDone(TodoCompletion, next: LocalDate?, nextTurn: UInt64?)
    /// The item's completion of `due` taken back: due that day again, `turn`'s turn again.
    case occurrenceReopened(RecordID, due: LocalDate, turn: UInt64?)
    /// A completion read from an export, into the history only.
    case completionImported(TodoCompletion)
}

/// The household's todo list, in the order the family arranged it.
public struct TodoList: Hashable, Sendable {
    /// The most items the list holds: with ``SharedText/todoText``'s bytes, the whole list always
    /// fits one reply within the default frame limit (500 items of 1 KiB, about 600 KB).
    public static let maximumItems = 500

    public internal(set) var items: [TodoItem] = []
    /// Chores done and skipped, oldest first, for ``historyDays``.
    public internal(set) var history: [TodoCompletion] = []

    public init() {}

    public func item(_ id: RecordID) -> TodoItem? {
        items.first { $0.id == id }
    }

    // MARK: Validating requests

    /// Adds an item at the end. Returns nil for a replay of an add that is already stored.
    public func validateAdd(id: RecordID, text: String, chore: Chore? = nil, by member: UInt64, now: Int64)
        throws(DomainError) -> TodoMutation?
    {
        if let existing = item(id) {
            guard existing.text == text.trimmingWhitespace() else {
                throw DomainError(.conflict, field: "item_id", "item id \(id) is already used for another item")
            }
            return nil
        }
        let text = try SharedText.todoText.checked(text)
        guard items.count < Self.maximumItems else {
            throw DomainError(
                .full, "the household's list holds \(items.count) items, the most it can; remove some (done ones first)"
            )
        }
        if chore?.recurrence != nil, recurringCount >= Self.maximumRecurringItems {
            throw DomainError(
                .full, field: "every",
                "the household's list holds \(recurringCount) chores that come back (every), the most it can; remove one first"
            )
        }
        return .added(TodoItem(id: id, text: text, addedBy: member, addedAtUnixMilliseconds: now, chore: chore))
    }

    /// Flips done; the item keeps its id and place.
    public func validateToggle(id: RecordID, by member: UInt64, now: Int64) throws(DomainError) -> TodoMutation {
        guard let item = item(id) else { throw Self.unknownItem(id) }
        return .completionSet(id, done: !item.isDone, by: member, atUnixMilliseconds: now)
    }

    /// Marks the item done or not done; nil when it already is (nothing to write).
    public func validateSetDone(id: RecordID, done: Bool, by member: UInt64, now: Int64) throws(DomainError)
        -> TodoMutation?
    {
        guard let item = item(id) else { throw Self.unknownItem(id) }
        guard item.isDone != done else { return nil }
        return .completionSet(id, done: done, by: member, atUnixMilliseconds: now)
    }

    public func validateDelete(id: RecordID) throws(DomainError) -> TodoMutation {
        guard item(id) != nil else { throw Self.unknownItem(id) }
        return .deleted(id)
    }

    /// Moves an item to `position` (0-based); everything else keeps its order.
    public func validateMove(id: RecordID, to position: Int) throws(DomainError) -> TodoMutation {
        guard item(id) != nil else { throw Self.unknownItem(id) }
        guard items.indices.contains(position) else {
            throw .invalid(
                "position", "a position on this list is between 0 (the top) and \(items.count - 1), got \(position)")
        }
        return .moved(id, toPosition: position)
    }

    static func unknownItem(_ id: RecordID) -> DomainError {
        DomainError(.notFound, field: "item_id", "there is no item \(id) on the list")
    }

    // MARK: Applying

    public mutating func apply(_ mutation: TodoMutation) {
        switch mutation {
        case .added(let item):
            guard self.item(item.id) == nil else { return }
            items.append(item)
        case .completionSet(let id, let done, let member, let at):
            guard let index = items.firstIndex(where: { $0.id == id }) else { return }
            items[index].isDone = done
            items[index].completedBy = done ? member : nil
            items[index].completedAtUnixMilliseconds = done ? at : nil
        case .deleted(let id):
            items.removeAll { $0.id == id }
        case .moved(let id, let position):
            guard let index = items.firstIndex(where: { $0.id == id }) else { return }
            let item = items.remove(at: index)
            items.insert(item, at: min(max(position, 0), items.count))
        case .occurrenceDone(let completion, let next, let nextTurn):
            applyDone(completion, next: next, nextTurn: nextTurn)
        case .occurrenceReopened(let id, let due, let turn):
            applyReopened(id, due: due, turn: turn)
        case .completionImported(let completion):
            applyImported(completion)
        }
    }

    /// Texts within the characters they were always held to, ids unique. The later rules of
    /// ``SharedText`` (bytes, control characters) and ``maximumItems`` apply to new items only: a
    /// list stored before them still loads.
    public var isValid: Bool {
        Set(items.map(\.id)).count == items.count
            && items.allSatisfy { SharedText.todoText.characters.contains($0.text.count) }
            && Set(history.map(\.key)).count == history.count
    }
}
