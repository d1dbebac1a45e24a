import WaterCore
import WaterProtocol
import WaterStore

/// The list as one call sees it: members' names, and the household at the call's time (its
/// calendar, who is in it, who is excused when), which a chore's assignee and overdue mark are
/// read from.
struct TodoView: Sendable {
    /// Every member's name, removed ones too (``ArchiveAccess/usernames()``).
    let names: [UInt64: String]
    /// The members now in the household, by username.
    let current: [String: UInt64]
    let household: ChoreHousehold
    let zone: MemberTimeZone

    /// The member now in the household called `username`, for the request field `field`.
    func member(named username: String, field: String) throws(WaterError) -> UInt64 {
        guard let id = current[username] else {
            let named = AccountBook.isValidUsername(username) ? username : "that"
            throw WaterError(.notFound, "\(field): there is no member called \(named) in the household")
        }
        return id
    }

    /// Chores due first, soonest (and overdue) first; then the rest in the family's order. With
    /// `mine`, only that member's not done by the end of the household's week.
    func items(_ list: TodoList, mine: UInt64? = nil) -> [WaterV1.TodoItem] {
        let weekEnd = ISOWeek(containing: household.today).sunday
        let rows = list.items.enumerated().filter { _, item in
            guard let mine else { return true }
            guard let chore = item.chore, !item.isDone else { return false }
            let due = chore.due ?? household.today
            return TodoList.assignee(of: chore, on: due, in: household) == mine && due <= weekEnd
        }
        func key(_ item: TodoItem) -> (Int, Int, Int) {
            guard !item.isDone, let chore = item.chore, let due = chore.due else { return (1, 0, 0) }
            return (0, due.daysSinceEpoch, chore.dueMinute ?? 1440)
        }
        return rows.sorted { lhs, rhs in
            let (l, r) = (key(lhs.element), key(rhs.element))
            return l != r ? l < r : lhs.offset < rhs.offset
        }.map { item($0.element, position: $0.offset) }
    }

    func item(in list: TodoList, id: RecordID) -> WaterV1.TodoItem? {
        list.items.firstIndex { $0.id == id }.map { item(list.items[$0], position: $0) }
    }

    /// An item as every reply carries it: a text an older server stored over today's bytes is
    /// cut, so that the list still fits a reply and the item can be seen and removed.
    func item(_ item: TodoItem, position: Int) -> WaterV1.TodoItem {
        var wire = WaterV1.TodoItem(
            itemID: item.id.description, text: SharedText.todoText.bounded(item.text), done: item.isDone,
            position: UInt32(position),
            addedBy: Wire.maker(item.addedBy, names), addedAtUnixMs: item.addedAtUnixMilliseconds,
            completedBy: item.completedBy.map { Wire.maker($0, names) } ?? "",
            completedAtUnixMs: item.completedAtUnixMilliseconds ?? 0)
        guard let chore = item.chore else { return wire }
        wire.dueDay = chore.due?.description ?? ""
        wire.dueTime = chore.dueTime ?? ""
        wire.every = chore.recurrence?.description ?? ""
        wire.assignee =
            TodoList.assignee(of: chore, on: chore.due ?? household.today, in: household).map {
                Wire.maker($0, names)
            } ?? ""
        wire.rotation = chore.rotation.filter(household.members.contains).map { Wire.maker($0, names) }
        wire.overdue = !item.isDone && chore.isOverdue(now: household.now, zone: zone)
        wire.lastDoneDay = chore.lastDone?.description ?? ""
        return wire
    }

    /// An item as an export carries it: whose turn it is as stored, and every member of the
    /// rotation, removed ones too, so that reading it back makes the same chore.
    func exported(_ item: TodoItem, position: Int) -> WaterV1.TodoItem {
        var wire = self.item(item, position: position)
        guard let chore = item.chore else { return wire }
        wire.assignee = chore.assignee.map { Wire.maker($0, names) } ?? ""
        wire.rotation = chore.rotation.map { Wire.maker($0, names) }
        wire.overdue = false
        return wire
    }

    /// A completion, with its item's text when `list` is given and holds it.
    func completion(_ completion: TodoCompletion, in list: TodoList?) -> WaterV1.TodoCompletion {
        WaterV1.TodoCompletion(
            itemID: completion.itemID.description,
            text: list?.item(completion.itemID).map { SharedText.todoText.bounded($0.text) } ?? "",
            dueDay: completion.due.description, doneBy: completion.doneBy.map { Wire.maker($0, names) } ?? "",
            turnOf: completion.turnOf.map { Wire.maker($0, names) } ?? "",
            markedBy: completion.markedBy.map { Wire.maker($0, names) } ?? "",
            atUnixMs: completion.atUnixMilliseconds, skipped: completion.isSkipped)
    }
}

extension ArchiveAccess {
    /// The list as a call at `now` sees it, on the household's calendar `zone`.
    func todoView(now: Int64, zone: MemberTimeZone) -> TodoView {
        let members = (try? accounts.read { $0.accounts }) ?? [:]
        // Through the board's cache of members' inputs: an archive dropped idle is not loaded
        // again (nor kept from the next sweep) for a look at its excused days.
        var excused: [UInt64: Set<LocalDate>] = [:]
        for id in members.keys {
            excused[id] =
                boards.cache.inputs.inputs(of: id, in: store).map {
                    ChoreHousehold.turnPassing(Set($0.water.excused.keys), privacy: $0.privacy.current)
                } ?? []
        }
        return TodoView(
            names: usernames(), current: Dictionary(members.values.map { ($0.username, $0.id) }) { $1 },
            household: ChoreHousehold(
                today: zone.date(atUnixMilliseconds: now), now: now, members: Set(members.keys), excused: excused),
            zone: zone)
    }
}
