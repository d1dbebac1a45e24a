import WaterCore

/// The household's shared todo list on disk.
extension TodoList: ArchiveModel {
    public typealias Mutation = TodoMutation

    public static let kind = ArchiveKind.household
    public static let snapshotVersions: ClosedRange<UInt16> = 1...1

    public init(context: ArchiveContext) {
        self.init()
    }

    public func encodeSnapshot(lastSequence: UInt64, journalGeneration: UInt64) -> [UInt8] {
        WaterArchiveV1.HouseholdSnapshot(
            lastSequence: lastSequence, journalGeneration: journalGeneration,
            items: items.map(StoredValues.stored), history: history.map(ChoreColumns.stored)
        ).serializedBytes()
    }

    public static func decodeSnapshot(_ body: [UInt8], version: UInt16, context: ArchiveContext)
        throws(ArchiveError) -> (archive: TodoList, lastSequence: UInt64, journalGeneration: UInt64)
    {
        let snapshot = try StoredValues.decode(WaterArchiveV1.HouseholdSnapshot.self, body)
        var list = TodoList()
        for stored in snapshot.items { list.apply(.added(try StoredValues.todo(stored))) }
        guard list.items.count == snapshot.items.count else { throw StoredValues.corrupt("todo ids repeat") }
        var history: [TodoCompletion] = []
        for stored in snapshot.history { history.append(try ChoreColumns.completion(stored)) }
        list.restoreHistory(history)
        return (list, snapshot.lastSequence, snapshot.journalGeneration)
    }

    public static func record(_ mutation: TodoMutation, sequence: UInt64) -> WaterArchiveV1.JournalRecord {
        var record = WaterArchiveV1.JournalRecord(sequence: sequence)
        switch mutation {
        case .added(let item):
            record.kind = .todoAdded
            record.todo = StoredValues.stored(item)
        case .completionSet(let id, let done, let member, let at):
            record.kind = .todoCompletionSet
            record.id = id.bytes
            record.done = done
            record.memberID = member
            record.atUnixMs = at
        case .deleted(let id):
            record.kind = .todoDeleted
            record.id = id.bytes
        case .moved(let id, let position):
            record.kind = .todoMoved
            record.id = id.bytes
            record.position = UInt32(position)
        case .occurrenceDone(let completion, let next, let nextTurn):
            record.kind = .todoOccurrenceDone
            record.completion = ChoreColumns.stored(completion)
            record.day = next.map { Int32($0.daysSinceEpoch + 1) } ?? 0
            record.memberID = nextTurn ?? 0
        case .occurrenceReopened(let id, let due, let turn):
            record.kind = .todoOccurrenceReopened
            record.id = id.bytes
            record.day = Int32(due.daysSinceEpoch)
            record.memberID = turn ?? 0
        case .completionImported(let completion):
            record.kind = .todoCompletionImported
            record.completion = ChoreColumns.stored(completion)
        }
        return record
    }

    public static func decodeRecord(_ bytes: ArraySlice<UInt8>, context: ArchiveContext) throws(ArchiveError)
        -> (mutation: TodoMutation, sequence: UInt64)
    {
        let record = try StoredValues.decode(WaterArchiveV1.JournalRecord.self, bytes)
        let mutation: TodoMutation
        switch record.kind {
        case .todoAdded: mutation = .added(try StoredValues.todo(record.todo))
        case .todoCompletionSet:
            mutation = .completionSet(
                try StoredValues.recordID(record.id, "a toggle"), done: record.done,
                by: record.memberID, atUnixMilliseconds: record.atUnixMs)
        case .todoDeleted: mutation = .deleted(try StoredValues.recordID(record.id, "a deletion"))
        case .todoMoved:
            mutation = .moved(try StoredValues.recordID(record.id, "a move"), toPosition: Int(record.position))
        case .todoOccurrenceDone:
            mutation = .occurrenceDone(
                try ChoreColumns.completion(record.completion),
                next: record.day == 0 ? nil : LocalDate(daysSinceEpoch: Int(record.day) - 1),
                nextTurn: record.memberID == 0 ? nil : record.memberID)
        case .todoOccurrenceReopened:
            mutation = .occurrenceReopened(
                try StoredValues.recordID(record.id, "a reopening"), due: LocalDate(daysSinceEpoch: Int(record.day)),
                turn: record.memberID == 0 ? nil : record.memberID)
        case .todoCompletionImported: mutation = .completionImported(try ChoreColumns.completion(record.completion))
        default: throw StoredValues.corrupt("the household's journal has a record of kind \(record.kind.rawValue)")
        }
        return (mutation, record.sequence)
    }
}
