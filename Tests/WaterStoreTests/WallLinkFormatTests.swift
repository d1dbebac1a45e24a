import Testing
import WaterCore

@testable import WaterStore

/// Issue 35: the kitchen wall's links are kept with the accounts, as digests, in the journal
/// and the snapshot alike; an archive from before them reads as one with none.
@Suite("The kitchen wall's links on disk")
struct WallLinkFormatTests {
    static let context = DrinkFormatTests.context
    private static let link = WallLink(
        digest: TokenDigest(bytes: [UInt8](repeating: 9, count: 32))!, madeBy: 1, madeAtUnixMilliseconds: 1234,
        label: "kitchen tablet")

    @Test("a link made and revoked goes through the journal's records and the snapshot")
    func throughRecordsAndSnapshot() throws {
        for mutation in [AccountMutation.wallLinkMade(Self.link), .wallLinkRevoked(Self.link.digest)] {
            let record = AccountBook.record(mutation, sequence: 3)
            let decoded = try AccountBook.decodeRecord(record.serializedBytes()[...], context: Self.context)
            #expect(decoded.mutation == mutation && decoded.sequence == 3)
        }
        var book = AccountBook()
        book.apply(.wallLinkMade(Self.link))
        #expect(book.wallLinks[Self.link.digest] == Self.link)
        #expect(Self.link.id == "0909090909090909")
        let body = book.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
        let read = try AccountBook.decodeSnapshot(body, version: AccountBook.snapshotVersion, context: Self.context)
        #expect(read.archive == book)
        book.apply(.wallLinkRevoked(Self.link.digest))
        #expect(book.wallLinks.isEmpty)
    }

    @Test("an accounts snapshot from before the wall has no links; a damaged digest is refused")
    func olderAndDamaged() throws {
        let old = WaterArchiveV1.AccountsSnapshot(lastSequence: 0, journalGeneration: 1, nextMemberID: 1)
        let read = try AccountBook.decodeSnapshot(
            old.serializedBytes(), version: AccountBook.snapshotVersion, context: Self.context)
        #expect(read.archive.wallLinks.isEmpty)
        let damaged = WaterArchiveV1.JournalRecord(sequence: 2, kind: .wallLinkRevoked, id: [1, 2, 3])
        #expect(throws: ArchiveError.self) {
            try AccountBook.decodeRecord(damaged.serializedBytes()[...], context: Self.context)
        }
    }

    @Test("a household keeps at most 16 links")
    func bounded() {
        var book = AccountBook()
        for index in 0..<20 {
            var link = Self.link
            link.digest = TokenDigest(bytes: [UInt8](repeating: UInt8(index), count: 32))!
            book.apply(.wallLinkMade(link))
        }
        #expect(book.wallLinks.count == WallLink.maximumCount)
    }
}
