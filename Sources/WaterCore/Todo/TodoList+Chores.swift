/// What a chore's decisions need from outside the list: the household's today, who is in the
/// household and who is excused on which days (the accounts and members' archives keep that).
public struct ChoreHousehold: Sendable {
    public var today: LocalDate
    public var now: Int64
    public var members: Set<UInt64>
    public var excused: [UInt64: Set<LocalDate>]

    public init(today: LocalDate, now: Int64, members: Set<UInt64>, excused: [UInt64: Set<LocalDate>] = [:]) {
        self.today = today
        self.now = now
        self.members = members
        self.excused = excused
    }

    /// The days of a member's `excused` that pass their chore turns on: all of them for a member
    /// whose privacy is full; none for a percent or hidden one, whose days away are theirs (a
    /// turn passed on would tell the household they are away): their turn stays, to do, skip or
    /// hand over.
    public static func turnPassing(_ excused: Set<LocalDate>, privacy: Privacy) -> Set<LocalDate> {
        privacy == .full ? excused : []
    }

    func isMember(_ member: UInt64) -> Bool { members.contains(member) }

    func isExcused(_ member: UInt64, _ day: LocalDate) -> Bool { excused[member]?.contains(day) ?? false }
}

extension TodoList {
    /// Recurring chores on the list at most: with ``historyDays`` of daily ones, the history
    /// holds at most 20 000 completions (about 40 bytes each in the archive, 800 KB).
    public static let maximumRecurringItems = 50
    /// How long the history of who did what is kept: a year of board history and a month more.
    public static let historyDays = 400

    var recurringCount: Int { items.count { $0.chore?.recurrence != nil } }

    /// Whose the item is on `day`: the member it is for while in the household, or the
    /// rotation's member whose turn it is, passed on to the next one in the household and not
    /// excused that day (nobody available: the first still in the household). Nil: anyone's.
    public static func assignee(of chore: Chore, on day: LocalDate, in household: ChoreHousehold) -> UInt64? {
        guard let assignee = chore.assignee else { return nil }
        guard !chore.rotation.isEmpty else { return household.isMember(assignee) ? assignee : nil }
        let start = chore.rotation.firstIndex(of: assignee) ?? 0
        let order = (0..<chore.rotation.count).map { chore.rotation[(start + $0) % chore.rotation.count] }
        return order.first { household.isMember($0) && !household.isExcused($0, day) }
            ?? order.first(where: household.isMember)
    }

    /// Marks the item done by `doneBy` (`markedBy` marking it, a guardian or admin; nil: the
    /// member themself). For a chore, `occurrence` names the due day meant: one already done,
    /// or passed, changes nothing, so a replay counts once. Nil: nothing to write.
    public func validateDone(
        id: RecordID, occurrence: LocalDate?, doneBy: UInt64, markedBy: UInt64?, household: ChoreHousehold
    ) throws(DomainError) -> TodoMutation? {
        guard let item = item(id) else { throw Self.unknownItem(id) }
        guard let chore = item.chore, let due = chore.due else {
            return try validateSetDone(id: id, done: true, by: doneBy, now: household.now)
        }
        guard try isCurrent(occurrence, of: id, due: due), !item.isDone else { return nil }
        let turnOf = Self.assignee(of: chore, on: due, in: household)
        let completion = TodoCompletion(
            itemID: id, due: due, doneBy: doneBy, turnOf: turnOf, markedBy: markedBy,
            atUnixMilliseconds: household.now)
        guard let recurrence = chore.recurrence else {
            return .occurrenceDone(completion, next: nil, nextTurn: chore.assignee)
        }
        // The rotation continues after the member whose turn it was, whoever did it.
        var nextTurn = chore.assignee
        if let turnOf, let index = chore.rotation.firstIndex(of: turnOf) {
            nextTurn = chore.rotation[(index + 1) % chore.rotation.count]
        }
        return .occurrenceDone(
            completion, next: recurrence.next(after: due, notBefore: household.today), nextTurn: nextTurn)
    }

    /// Moves a recurring chore to its next occurrence with nobody doing it; the turn stays.
    public func validateSkip(id: RecordID, occurrence: LocalDate?, by member: UInt64, household: ChoreHousehold)
        throws(DomainError) -> TodoMutation?
    {
        guard let item = item(id) else { throw Self.unknownItem(id) }
        guard let chore = item.chore, let due = chore.due, let recurrence = chore.recurrence else {
            throw DomainError(
                .invalid, field: "item_id", "only a chore that comes back (todo add --every) can be skipped")
        }
        guard try isCurrent(occurrence, of: id, due: due) else { return nil }
        let completion = TodoCompletion(
            itemID: id, due: due, doneBy: nil, turnOf: Self.assignee(of: chore, on: due, in: household),
            markedBy: member, atUnixMilliseconds: household.now)
        return .occurrenceDone(
            completion, next: recurrence.next(after: due, notBefore: household.today), nextTurn: chore.assignee)
    }

    /// Reopens the chore's occurrence done (or skipped) last: it is due that day again and the
    /// turn goes back. Only that one can be: once reopened, a repeat changes nothing. Nil:
    /// nothing to write.
    public func validateReopen(id: RecordID, by member: UInt64, now: Int64) throws(DomainError) -> TodoMutation? {
        guard let item = item(id) else { throw Self.unknownItem(id) }
        guard let chore = item.chore, chore.due != nil else {
            return try validateSetDone(id: id, done: false, by: member, now: now)
        }
        guard let last = chore.lastDone else { return nil }
        let completion = history.last { $0.key == TodoCompletion.Key(itemID: id, due: last) }
        return .occurrenceReopened(id, due: last, turn: completion?.turnOf ?? chore.assignee)
    }

    /// Whether `occurrence` (nil: the one due now) is the item's current one; false when it was
    /// already done or skipped, or is past.
    private func isCurrent(_ occurrence: LocalDate?, of id: RecordID, due: LocalDate) throws(DomainError) -> Bool {
        guard let occurrence, occurrence != due else { return true }
        guard occurrence > due else { return false }
        throw .invalid("due_day", "this chore is due \(due) next; \(occurrence) is not due yet")
    }

    /// The completions of the item `id` (nil: every item's), newest first.
    public func completions(of id: RecordID?) -> [TodoCompletion] {
        history.reversed().filter { id == nil || $0.itemID == id }
    }

    /// Each member's chores for the board: the household days they did one (credited, whoever's
    /// turn it was) and the due days of the occurrences that were theirs (done, skipped or open).
    public func memberChores(members: Set<UInt64>, excused: [UInt64: Set<LocalDate>], zone: MemberTimeZone)
        -> [UInt64: MemberChores]
    {
        // Whose turn an open one is depends on who is in the household and excused, not on today.
        let household = ChoreHousehold(today: LocalDate(daysSinceEpoch: 0), now: 0, members: members, excused: excused)
        var chores: [UInt64: MemberChores] = [:]
        for completion in history {
            if let doneBy = completion.doneBy {
                chores[doneBy, default: MemberChores()].done.append(
                    zone.date(atUnixMilliseconds: completion.atUnixMilliseconds))
            }
            if let turnOf = completion.turnOf { chores[turnOf, default: MemberChores()].due.append(completion.due) }
        }
        for item in items where !item.isDone {
            guard let chore = item.chore, let due = chore.due,
                let member = Self.assignee(of: chore, on: due, in: household)
            else { continue }
            chores[member, default: MemberChores()].due.append(due)
        }
        return chores
    }

    // MARK: Applying

    mutating func applyDone(_ completion: TodoCompletion, next: LocalDate?, nextTurn: UInt64?) {
        guard !history.contains(where: { $0.key == completion.key }) else { return }
        let oldest = completion.atUnixMilliseconds - Int64(Self.historyDays) * 86_400_000
        history.removeAll { $0.atUnixMilliseconds < oldest }
        history.append(completion)
        guard let index = items.firstIndex(where: { $0.id == completion.itemID }) else { return }
        items[index].chore?.assignee = nextTurn
        items[index].chore?.lastDone = completion.due
        if let next {
            items[index].chore?.due = next
        } else {
            items[index].isDone = true
            items[index].completedBy = completion.doneBy ?? completion.markedBy
            items[index].completedAtUnixMilliseconds = completion.atUnixMilliseconds
        }
    }

    mutating func applyReopened(_ id: RecordID, due: LocalDate, turn: UInt64?) {
        history.removeAll { $0.key == TodoCompletion.Key(itemID: id, due: due) }
        guard let index = items.firstIndex(where: { $0.id == id }) else { return }
        items[index].chore?.due = due
        items[index].chore?.assignee = turn
        items[index].chore?.lastDone = nil
        items[index].isDone = false
        items[index].completedBy = nil
        items[index].completedAtUnixMilliseconds = nil
    }

    /// Restores the history a snapshot holds (oldest first).
    public mutating func restoreHistory(_ completions: [TodoCompletion]) {
        history = completions
    }
}

/// A member's chores as the board counts them, by day.
public struct MemberChores: Hashable, Sendable {
    /// The household days the member did a chore.
    public var done: [LocalDate] = []
    /// The due days of the occurrences whose turn was the member's.
    public var due: [LocalDate] = []

    public init() {}
}
