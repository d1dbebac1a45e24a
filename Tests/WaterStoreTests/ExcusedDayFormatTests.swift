import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

@testable import WaterStore

/// Excused days on disk: a log record each, and the snapshot's list; a snapshot from before
/// them has none. The streaks and habits' streaks are rebuilt from what is read.
@Suite("Excused days on disk")
struct ExcusedDayFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)
    static let noon: Int64 = 1_796_040_000_000

    @Test("excused days and their reasons come back through a snapshot and through log records")
    func roundTrip() throws {
        var archive = MemberArchive(timeZone: .utc)
        let today = archive.water.today(atUnixMilliseconds: Self.noon)
        let habit = Habit(
            id: RecordID(high: 1, low: 2), name: "read", icon: .book, color: .green,
            createdAtUnixMilliseconds: Self.noon)
        let mutations: [MemberMutation] = [
            .habit(.added(habit)), .habit(.checked(habit.id, today.adding(days: -2))),
            .water(.excused(today.adding(days: -1), reason: "sick")), .habit(.checked(habit.id, today)),
            .water(.excused(today.adding(days: 3), reason: "")), .water(.excused(today.adding(days: 4), reason: "x")),
            .water(.unexcused(today.adding(days: 4))),
        ]
        var replayed = MemberArchive(timeZone: .utc)
        for (index, mutation) in mutations.enumerated() {
            archive.apply(mutation)
            let bytes = MemberArchive.record(mutation, sequence: UInt64(index + 1)).serializedBytes()
            let (decoded, sequence) = try MemberArchive.decodeRecord(bytes[...], context: Self.context)
            #expect(decoded == mutation && sequence == UInt64(index + 1))
            replayed.apply(decoded)
        }
        #expect(archive.water.excused == [today.adding(days: -1): "sick", today.adding(days: 3): ""])
        // The sick day bridges the two check-ins: a streak of 2.
        let isExcused = { (date: LocalDate) in archive.water.excused[date] != nil }
        #expect(archive.habits.streak(of: habit.id, today: today, isExcused: isExcused) == (2, 2))
        let (loaded, last, _) = try MemberArchive.decodeSnapshot(
            archive.encodeSnapshot(lastSequence: 7, journalGeneration: 1), version: MemberArchive.snapshotVersion,
            context: Self.context)
        #expect(last == 7)
        #expect(loaded == archive && replayed == archive)
        #expect(loaded.water.day(today.adding(days: -1)).excuse == "sick")
        let loadedExcused = { (date: LocalDate) in loaded.water.excused[date] != nil }
        #expect(loaded.habits.streak(of: habit.id, today: today, isExcused: loadedExcused) == (2, 2))
    }
}
