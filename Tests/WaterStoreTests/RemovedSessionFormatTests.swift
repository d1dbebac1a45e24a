import Testing
import WaterCore

@testable import WaterStore

/// Issue 32, item 13: the sessions a removed member had are kept, in the journal and the
/// snapshot alike, so that a call with one is told the member was removed; a restore ends them.
@Suite("A removed member's sessions on disk")
struct RemovedSessionFormatTests {
    static let context = DrinkFormatTests.context
    private static let digest = TokenDigest(bytes: [UInt8](repeating: 7, count: 32))!

    private func household() throws -> AccountBook {
        var book = AccountBook()
        for name in ["mum", "ben"] {
            book.apply(
                try book.validateAdd(
                    username: name, displayName: name, role: name == "mum" ? .admin : .member, timeZone: .utc,
                    passwordHash: "hash", now: 0))
        }
        let ben = try #require(book.account(named: "ben"))
        book.apply(.sessionStarted(Session(digest: Self.digest, memberID: ben.id, expiresAtUnixMilliseconds: 1000)))
        book.apply(try book.validateRemoval("ben", now: 500))
        return book
    }

    @Test("a removed member's session is told apart until it expires, and survives the snapshot")
    func keptThroughTheSnapshot() throws {
        let book = try household()
        #expect(book.session(Self.digest, now: 10) == nil)
        #expect(book.removedSession(Self.digest, now: 10)?.memberID == 2)
        #expect(book.removedSession(Self.digest, now: 1000) == nil, "expired: an expired session, as any")
        #expect(book.isValid)
        let body = book.encodeSnapshot(lastSequence: 4, journalGeneration: 1)
        let (read, _, _) = try AccountBook.decodeSnapshot(
            body, version: AccountBook.snapshotVersion, context: Self.context)
        #expect(read == book)
        #expect(read.removedSession(Self.digest, now: 10)?.memberID == 2)
    }

    @Test("restoring the member ends the sessions they had: they log in again")
    func restoreEndsThem() throws {
        var book = try household()
        book.apply(try book.validateRestore("ben", now: 900))
        #expect(book.session(Self.digest, now: 10) == nil && book.removedSession(Self.digest, now: 10) == nil)
        #expect(book.isValid)
        // The time away is kept, through the snapshot (issue 32 item 9: "not a member then").
        let ben = try #require(book.account(named: "ben"))
        #expect(ben.absences == [Account.Absence(removedAtUnixMilliseconds: 500, restoredAtUnixMilliseconds: 900)])
        let body = book.encodeSnapshot(lastSequence: 5, journalGeneration: 1)
        let read = try AccountBook.decodeSnapshot(body, version: AccountBook.snapshotVersion, context: Self.context)
            .archive
        #expect(read == book)
        // A removal record from before the instant was kept restores with no time away.
        let record = WaterArchiveV1.JournalRecord(sequence: 9, kind: .accountRemoved, memberID: ben.id)
        let decoded = try AccountBook.decodeRecord(record.serializedBytes()[...], context: Self.context).mutation
        #expect(decoded == .removed(memberID: ben.id, atUnixMilliseconds: nil))
    }
}
