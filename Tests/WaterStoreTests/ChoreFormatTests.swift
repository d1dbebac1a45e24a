import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

@testable import WaterStore

/// Chores on disk: every field and the history through a snapshot and the log's records as they
/// were; a household archive from before chores (no fields) reads as plain items and no history.
@Suite("Chores on disk")
struct ChoreFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)
    static let today = LocalDate("2027-01-04")!

    static func id(_ n: UInt64) -> RecordID { RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: n) }

    /// A list with one chore of each kind, two done (one by a guardian) and one skipped.
    static func list() throws -> TodoList {
        var list = TodoList()
        let chores: [Chore?] = [
            nil,
            try Chore.validated(
                due: "2027-01-04T19:00", every: "week", assignee: nil, rotation: [3, 1, 2], today: today),
            try Chore.validated(due: "2027-01-31", every: "month", assignee: 2, rotation: [], today: today),
            try Chore.validated(due: "", every: "mon,thu", assignee: nil, rotation: [], today: today),
            try Chore.validated(due: "", every: "3 days", assignee: nil, rotation: [], today: today),
            try Chore.validated(due: "2027-02-01", every: "", assignee: nil, rotation: [], today: today),
            try Chore.validated(due: "", every: "", assignee: 4, rotation: [], today: today),
        ]
        for (n, chore) in chores.enumerated() {
            list.apply(
                try #require(try list.validateAdd(id: id(UInt64(n)), text: "chore \(n)", chore: chore, by: 1, now: 1)))
        }
        let household = ChoreHousehold(today: today, now: 1_794_000_000_000, members: [1, 2, 3, 4])
        list.apply(
            try #require(
                try list.validateDone(id: id(1), occurrence: nil, doneBy: 4, markedBy: 1, household: household)))
        list.apply(try #require(try list.validateSkip(id: id(3), occurrence: nil, by: 2, household: household)))
        list.apply(
            try #require(
                try list.validateDone(id: id(5), occurrence: nil, doneBy: 2, markedBy: nil, household: household)))
        return list
    }

    @Test("every chore field and the history go through a snapshot and the log as they were")
    func roundTrip() throws {
        let list = try Self.list()
        #expect(list.history.count == 3 && list.items.filter { $0.chore != nil }.count == 6)
        let snapshot = list.encodeSnapshot(lastSequence: 9, journalGeneration: 1)
        let read = try TodoList.decodeSnapshot(snapshot, version: 1, context: Self.context).archive
        #expect(read == list)
        // Replaying the same adds and completions, record by record, makes the same list.
        var replayed = TodoList()
        var mutations: [TodoMutation] = list.items.map { item in
            var added = item
            added.isDone = false
            added.completedBy = nil
            added.completedAtUnixMilliseconds = nil
            return .added(added)
        }
        mutations.append(.occurrenceReopened(Self.id(1), due: Self.today, turn: 3))
        mutations.append(
            .completionImported(
                TodoCompletion(
                    itemID: Self.id(9), due: Self.today, doneBy: nil, turnOf: 2, markedBy: 3, atUnixMilliseconds: 7)))
        for (n, mutation) in mutations.enumerated() {
            let record = TodoList.encodeRecord(mutation, sequence: UInt64(n + 1))
            let decoded = try TodoList.decodeRecord(record[...], context: Self.context)
            #expect(decoded.mutation == mutation && decoded.sequence == UInt64(n + 1))
            replayed.apply(decoded.mutation)
        }
        for completion in list.history {
            let item = list.item(completion.itemID)!
            let mutation = TodoMutation.occurrenceDone(
                completion, next: item.isDone ? nil : item.chore?.due, nextTurn: item.chore?.assignee)
            let record = TodoList.encodeRecord(mutation, sequence: 20)
            #expect(try TodoList.decodeRecord(record[...], context: Self.context).mutation == mutation)
        }
    }

    @Test("a household archive from before chores loads as it was: plain items, no history")
    func oldArchive() throws {
        let old = WaterArchiveV1.HouseholdSnapshot(
            lastSequence: 2, journalGeneration: 1,
            items: [
                WaterArchiveV1.StoredTodo(
                    id: Self.id(1).bytes, text: "buy filters", done: true, addedBy: 1, addedAtUnixMs: 5, completedBy: 2,
                    completedAtUnixMs: 6)
            ]
        ).serializedBytes()
        let read = try TodoList.decodeSnapshot(old, version: 1, context: Self.context).archive
        #expect(read.items.count == 1 && read.items[0].chore == nil && read.items[0].completedBy == 2)
        #expect(read.history.isEmpty && read.isValid)
    }

    @Test("a recurrence or completion this version cannot read is corruption")
    func unreadable() {
        let bad = WaterArchiveV1.HouseholdSnapshot(
            lastSequence: 2, journalGeneration: 1,
            items: [
                WaterArchiveV1.StoredTodo(
                    id: Self.id(1).bytes, text: "buy filters", dueDay: 1, everyKind: 9, everyCount: 1)
            ])
        #expect(throws: ArchiveError.self) {
            try TodoList.decodeSnapshot(bad.serializedBytes(), version: 1, context: Self.context)
        }
        let skippedAndDone = WaterArchiveV1.JournalRecord(
            sequence: 3, kind: .todoOccurrenceDone,
            completion: WaterArchiveV1.StoredCompletion(itemID: Self.id(1).bytes, dueDay: 1, doneBy: 2, skipped: true))
        #expect(throws: ArchiveError.self) {
            try TodoList.decodeRecord(skippedAndDone.serializedBytes()[...], context: Self.context)
        }
    }
}
