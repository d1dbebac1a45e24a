import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

@testable import WaterStore

/// Issue 34: a member's reminders (the push token too) in the accounts archive: snapshot and
/// record; an account from before reminders has none, and settings out of range are corruption.
@Suite("Reminders on disk")
struct ReminderFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)

    @Test("the settings go through a snapshot and a record as they were")
    func roundTrip() throws {
        var book = AccountBook()
        book.apply(
            try book.validateAdd(
                username: "mum", displayName: "Mum", role: .admin, timeZone: .utc, passwordHash: "h", now: 1))
        let mum = try #require(book.account(named: "mum"))
        let settings = try ReminderSettings(
            every: 90, from: "22:00", to: "06:00", mqtt: true, pushURL: "https://ntfy.example/w", pushToken: "tk_1")
        book.apply(.remindersSet(memberID: mum.id, settings))
        let body = book.encodeSnapshot(lastSequence: 2, journalGeneration: 1)
        let read = try AccountBook.decodeSnapshot(body, version: AccountBook.snapshotVersion, context: Self.context)
        #expect(read.archive.account(named: "mum")?.reminders == settings)
        let record = AccountBook.encodeRecord(.remindersSet(memberID: mum.id, settings), sequence: 3)
        #expect(
            try AccountBook.decodeRecord(record[...], context: Self.context).mutation
                == .remindersSet(memberID: mum.id, settings))
        // Renaming keeps them (a change carries the account, reminders aside).
        var renamed = book
        renamed.apply(try renamed.validateRename("mum", newUsername: "mama", newDisplayName: nil))
        #expect(renamed.account(named: "mama")?.reminders == settings)
    }

    @Test("stored settings out of range are corruption, naming nothing of the token")
    func outOfRange() throws {
        let record = WaterArchiveV1.JournalRecord(
            sequence: 2, kind: .remindersSet, memberID: 1,
            reminders: WaterArchiveV1.StoredReminders(waterEveryMinutes: 3, waterFromMinute: 480, waterToMinute: 1320))
        #expect(throws: ArchiveError.self) {
            try AccountBook.decodeRecord(record.serializedBytes()[...], context: Self.context)
        }
    }
}
