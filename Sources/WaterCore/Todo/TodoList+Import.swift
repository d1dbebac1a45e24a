/// An export of the list read back: what is not on the list or in the history yet.
extension TodoList {
    /// Completions in one import request at most (and in one page of an export).
    public static let completionsPerPart = 4000

    /// The items whose ids are not on the list, held to the rules of an added item (their text,
    /// ``maximumItems`` and ``maximumRecurringItems``), and the completions the history does not
    /// have that are within ``historyDays`` of the newest it keeps (or of `now`).
    public func validateImport(items imported: [TodoItem], completions: [TodoCompletion], now: Int64)
        throws(DomainError) -> [TodoMutation]
    {
        var mutations: [TodoMutation] = []
        var ids = Set(items.map(\.id))
        var (count, recurring) = (items.count, recurringCount)
        for item in imported where !ids.contains(item.id) {
            var item = item
            item.text = try SharedText.todoText.checked(item.text)
            count += 1
            if item.chore?.recurrence != nil { recurring += 1 }
            guard count <= Self.maximumItems else {
                throw DomainError(
                    .full, "the import would put \(count) items on the list, more than \(Self.maximumItems)")
            }
            guard recurring <= Self.maximumRecurringItems else {
                throw DomainError(
                    .full, field: "every",
                    "the import would put \(recurring) chores that come back on the list, more than \(Self.maximumRecurringItems)"
                )
            }
            ids.insert(item.id)
            mutations.append(.added(item))
        }
        guard completions.count <= Self.completionsPerPart else {
            throw .invalid(
                "history",
                "an import carries at most \(Self.completionsPerPart) completions at once, got \(completions.count)")
        }
        var keys = Set(history.map(\.key))
        let newest = max(now, history.last?.atUnixMilliseconds ?? now)
        let oldest = newest - Int64(Self.historyDays) * 86_400_000
        for completion in completions where completion.atUnixMilliseconds >= oldest && !keys.contains(completion.key) {
            keys.insert(completion.key)
            mutations.append(.completionImported(completion))
        }
        return mutations
    }

    /// Into the history in time order; one older than the history keeps is left out.
    mutating func applyImported(_ completion: TodoCompletion) {
        guard !history.contains(where: { $0.key == completion.key }) else { return }
        let newest = max(completion.atUnixMilliseconds, history.last?.atUnixMilliseconds ?? 0)
        guard completion.atUnixMilliseconds >= newest - Int64(Self.historyDays) * 86_400_000 else { return }
        let index = history.lastIndex { $0.atUnixMilliseconds <= completion.atUnixMilliseconds }.map { $0 + 1 } ?? 0
        history.insert(completion, at: index)
    }
}
