import WaterCore

/// A chore's fields and its completions on disk (`StoredTodo` 20-26, `StoredCompletion`). An item
/// stored before chores has them all 0: no chore.
enum ChoreColumns {
    static func store(_ chore: Chore, in stored: inout WaterArchiveV1.StoredTodo) {
        stored.dueDay = chore.due.map { Int32($0.daysSinceEpoch + 1) } ?? 0
        stored.dueMinute = chore.dueMinute.map { UInt32($0 + 1) } ?? 0
        switch chore.recurrence {
        case nil: break
        case .days(let count): (stored.everyKind, stored.everyCount) = (1, UInt32(count))
        case .weeks(let count): (stored.everyKind, stored.everyCount) = (2, UInt32(count))
        case .months(let count, let day):
            (stored.everyKind, stored.everyCount, stored.monthDay) = (3, UInt32(count), UInt32(day))
        case .weekdays(let days):
            stored.everyKind = 4
            stored.everyCount = days.reduce(0) { $0 | 1 << UInt32($1 - 1) }
        }
        stored.assignee = chore.assignee ?? 0
        stored.rotation = chore.rotation
        stored.lastDoneDay = chore.lastDone.map { Int32($0.daysSinceEpoch + 1) } ?? 0
    }

    static func chore(_ stored: WaterArchiveV1.StoredTodo) throws(ArchiveError) -> Chore? {
        let count = Int(stored.everyCount)
        let recurrence: Recurrence?
        switch stored.everyKind {
        case 0: recurrence = nil
        case 1 where count >= 1: recurrence = .days(count)
        case 2 where count >= 1: recurrence = .weeks(count)
        case 3 where count >= 1 && (1...31).contains(stored.monthDay):
            recurrence = .months(count, dayOfMonth: Int(stored.monthDay))
        case 4 where (1...127).contains(count):
            recurrence = .weekdays(Set((1...7).filter { count & 1 << ($0 - 1) != 0 }))
        default:
            throw StoredValues.corrupt("a todo item recurs as kind \(stored.everyKind) with \(stored.everyCount)")
        }
        guard stored.dueMinute <= 1440 else {
            throw StoredValues.corrupt("a todo item is due at minute \(stored.dueMinute)")
        }
        let chore = Chore(
            due: stored.dueDay == 0 ? nil : LocalDate(daysSinceEpoch: Int(stored.dueDay) - 1),
            dueMinute: stored.dueMinute == 0 ? nil : Int(stored.dueMinute) - 1, recurrence: recurrence,
            assignee: stored.assignee == 0 ? nil : stored.assignee, rotation: stored.rotation,
            lastDone: stored.lastDoneDay == 0 ? nil : LocalDate(daysSinceEpoch: Int(stored.lastDoneDay) - 1))
        return chore == Chore() ? nil : chore
    }

    static func stored(_ completion: TodoCompletion) -> WaterArchiveV1.StoredCompletion {
        WaterArchiveV1.StoredCompletion(
            itemID: completion.itemID.bytes, dueDay: Int32(completion.due.daysSinceEpoch),
            doneBy: completion.doneBy ?? 0, turnOf: completion.turnOf ?? 0, markedBy: completion.markedBy ?? 0,
            atUnixMs: completion.atUnixMilliseconds, skipped: completion.isSkipped)
    }

    static func completion(_ stored: WaterArchiveV1.StoredCompletion?) throws(ArchiveError) -> TodoCompletion {
        guard let stored else { throw StoredValues.corrupt("a record has no completion") }
        guard stored.skipped == (stored.doneBy == 0) else {
            throw StoredValues.corrupt("a completion is skipped and done at once")
        }
        return TodoCompletion(
            itemID: try StoredValues.recordID(stored.itemID, "a completion"),
            due: LocalDate(daysSinceEpoch: Int(stored.dueDay)), doneBy: stored.skipped ? nil : stored.doneBy,
            turnOf: stored.turnOf == 0 ? nil : stored.turnOf, markedBy: stored.markedBy == 0 ? nil : stored.markedBy,
            atUnixMilliseconds: stored.atUnixMs)
    }
}
