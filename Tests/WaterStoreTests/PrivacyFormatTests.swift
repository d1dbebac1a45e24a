import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

@testable import WaterStore

/// A member's privacy on disk: in the snapshot and as its own log record; an archive from before
/// privacy (no field) reads as full, and a level this version does not know is corruption.
@Suite("Privacy on disk")
struct PrivacyFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)

    @Test("every level goes through a snapshot and a log record as it was; an old snapshot is full")
    func roundTrip() throws {
        for level in Privacy.allCases {
            var archive = MemberArchive(timeZone: .utc)
            archive.apply(.privacySet(level))
            let snapshot = archive.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
            let read = try MemberArchive.decodeSnapshot(snapshot, version: 2, context: Self.context).archive
            #expect(read.privacy == level)
            let record = MemberArchive.encodeRecord(.privacySet(level), sequence: 2)
            #expect(try MemberArchive.decodeRecord(record[...], context: Self.context).mutation == .privacySet(level))
        }
        let old = WaterArchiveV1.MemberSnapshot(lastSequence: 1, usualCupMl: 250, timeZone: "UTC").serializedBytes()
        #expect(try MemberArchive.decodeSnapshot(old, version: 2, context: Self.context).archive.privacy == .full)
    }

    @Test("a level this version does not know, in a snapshot or a record, is corruption")
    func unknownLevel() {
        let snapshot = WaterArchiveV1.MemberSnapshot(lastSequence: 1, usualCupMl: 250, timeZone: "UTC", privacy: 9)
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeSnapshot(snapshot.serializedBytes(), version: 2, context: Self.context)
        }
        let record = WaterArchiveV1.JournalRecord(sequence: 2, kind: .privacySet, privacy: 3)
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeRecord(record.serializedBytes()[...], context: Self.context)
        }
    }
}
