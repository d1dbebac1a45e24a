import Testing
import WaterCore
import WaterProtocol

@testable import WaterStore

/// Children on disk: who made an entry for its owner survives a snapshot and a log record, and
/// an account's child flag and guardians survive the accounts' snapshot and records.
@Suite("Children on disk")
struct ChildFormatTests {
    // The same fixtures as the drinks' format tests.
    static let context = DrinkFormatTests.context
    static let noon = DrinkFormatTests.noon
    static func id(_ n: UInt64) -> RecordID { DrinkFormatTests.id(n) }

    @Test("made_by survives a snapshot and a log record; an archive nobody logged for has no column")
    func madeByRoundTrip() throws {
        let entries = [
            WaterEntry(id: Self.id(1), amountMillilitres: 250, unixMilliseconds: Self.noon),
            WaterEntry(
                id: Self.id(2), amountMillilitres: 200, unixMilliseconds: Self.noon + 1, drink: "milk",
                factorHundredths: 150, madeBy: 3),
            WaterEntry(id: Self.id(3), amountMillilitres: 300, unixMilliseconds: Self.noon + 2, madeBy: 1),
        ]
        var archive = MemberArchive(timeZone: .utc)
        for entry in entries { archive.apply(.water(.logged(entry))) }
        let body = archive.encodeSnapshot(lastSequence: 3, journalGeneration: 1)
        let (read, _, _) = try MemberArchive.decodeSnapshot(
            body, version: MemberArchive.snapshotVersion, context: Self.context)
        #expect(read == archive)
        #expect(read.water.entries.map(\.madeBy) == [0, 3, 1])
        #expect(try WaterArchiveV1.MemberSnapshot(serializedBytes: body).entries?.madeBy == [0, 3, 1])
        for entry in entries {
            let bytes = MemberArchive.encodeRecord(.water(.logged(entry)), sequence: 1)
            #expect(
                try MemberArchive.decodeRecord(bytes[...], context: Self.context).mutation == .water(.logged(entry)))
        }
        // An edit keeps who made the entry.
        let edit = try archive.water.validateEdit(
            id: Self.id(2), amountMillilitres: 300, unixMilliseconds: nil, now: Self.noon + 10)
        #expect(
            edit
                == .edited(
                    WaterEntry(
                        id: Self.id(2), amountMillilitres: 300, unixMilliseconds: Self.noon + 1, drink: "milk",
                        factorHundredths: 150, madeBy: 3)))
        let editBytes = MemberArchive.encodeRecord(.water(edit), sequence: 4)
        #expect(try MemberArchive.decodeRecord(editBytes[...], context: Self.context).mutation == .water(edit))

        var own = MemberArchive(timeZone: .utc)
        own.apply(.water(.logged(entries[0])))
        let ownColumns = try WaterArchiveV1.MemberSnapshot(
            serializedBytes: own.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
        ).entries
        #expect(ownColumns?.madeBy == [])
        // A column of another length is damage, never guessed at.
        var damaged = try WaterArchiveV1.MemberSnapshot(serializedBytes: body)
        damaged.entries?.madeBy = [0, 3]
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeSnapshot(
                damaged.serializedBytes(), version: MemberArchive.snapshotVersion, context: Self.context)
        }
    }

    @Test("a child and their guardians survive the accounts' snapshot and a changed record")
    func childAccountRoundTrip() throws {
        var book = AccountBook()
        for (name, child) in [("mum", false), ("dad", false), ("kim", true)] {
            let added = try book.validateAdd(
                username: name, displayName: name, role: name == "mum" ? .admin : .member, timeZone: .utc,
                passwordHash: "hash", now: Self.noon, isChild: child)
            book.apply(added)
        }
        #expect(book.account(named: "kim")?.hasPassword == false)
        let guardian = try #require(try book.validateGuardian(child: "kim", guardian: "dad", remove: false))
        book.apply(guardian)
        // A second time changes nothing.
        #expect(try book.validateGuardian(child: "kim", guardian: "dad", remove: false) == nil)
        #expect(throws: DomainError.self) { try book.validateGuardian(child: "dad", guardian: "mum", remove: false) }
        #expect(throws: DomainError.self) { try book.validateRole("mum", role: .member) }

        let bytes = AccountBook.encodeRecord(guardian, sequence: 5)
        #expect(try AccountBook.decodeRecord(bytes[...], context: Self.context).mutation == guardian)
        let body = book.encodeSnapshot(lastSequence: 5, journalGeneration: 1)
        let (read, _, _) = try AccountBook.decodeSnapshot(
            body, version: AccountBook.snapshotVersion, context: Self.context)
        #expect(read == book)
        let kim = try #require(read.account(named: "kim"))
        #expect(kim.isChild && kim.guardians == [2] && read.guardianNames(of: kim) == ["dad"])
    }
}
