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
            archive.apply(.privacySet(level, from: nil))
            let snapshot = archive.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
            let read = try MemberArchive.decodeSnapshot(snapshot, version: 2, context: Self.context).archive
            #expect(read.privacy == level)
            for from in [nil, LocalDate("2026-11-30")] {
                let record = MemberArchive.encodeRecord(.privacySet(level, from: from), sequence: 2)
                let read = try MemberArchive.decodeRecord(record[...], context: Self.context).mutation
                #expect(read == .privacySet(level, from: from))
            }
        }
        let old = WaterArchiveV1.MemberSnapshot(lastSequence: 1, usualCupMl: 250, timeZone: "UTC").serializedBytes()
        #expect(try MemberArchive.decodeSnapshot(old, version: 2, context: Self.context).archive.privacy == .full)
    }

    @Test("issue 32 item 4: the levels of each day go through a snapshot; an old record holds on every day")
    func levelsPerDay() throws {
        let monday = try #require(LocalDate("2026-11-30"))
        var archive = MemberArchive(timeZone: .utc)
        archive.apply(.privacySet(.percent, from: monday.adding(days: -7)))
        archive.apply(.privacySet(.hidden, from: monday))
        let snapshot = archive.encodeSnapshot(lastSequence: 2, journalGeneration: 1)
        let read = try MemberArchive.decodeSnapshot(snapshot, version: 2, context: Self.context).archive
        #expect(read.privacyHistory == archive.privacyHistory)
        #expect(read.privacyHistory.value(on: monday.adding(days: -8)) == .full)
        #expect(read.privacyHistory.value(on: monday.adding(days: -1)) == .percent && read.privacy == .hidden)
        // A record from before levels were kept per day (no day) holds on every day.
        let old = WaterArchiveV1.JournalRecord(sequence: 3, kind: .privacySet, privacy: 1)
        var replayed = read
        replayed.apply(try MemberArchive.decodeRecord(old.serializedBytes()[...], context: Self.context).mutation)
        #expect(replayed.privacyHistory.changes.isEmpty && replayed.privacyHistory.value(on: monday) == .percent)
        // Changes out of order, or a last one that is not the level in force, are corruption.
        let unordered = WaterArchiveV1.MemberSnapshot(
            lastSequence: 1, usualCupMl: 250, timeZone: "UTC", privacy: 1,
            privacyChanges: [.init(fromDay: 20_500, privacy: 2), .init(fromDay: 20_400, privacy: 1)])
        let wrongLast = WaterArchiveV1.MemberSnapshot(
            lastSequence: 1, usualCupMl: 250, timeZone: "UTC", privacy: 1,
            privacyChanges: [.init(fromDay: 20_500, privacy: 2)])
        for snapshot in [unordered, wrongLast] {
            #expect(throws: ArchiveError.self) {
                try MemberArchive.decodeSnapshot(snapshot.serializedBytes(), version: 2, context: Self.context)
            }
        }
    }

    @Test("issue 32 item 7: time zone moves go through a snapshot and a record; an old record moves every day")
    func zoneMoves() throws {
        let vienna = try #require(Self.context.timeZones.zone(named: "Europe/Vienna"))
        let move: Int64 = 1_796_040_000_000
        var archive = MemberArchive(timeZone: .utc)
        archive.apply(.water(.timeZoneSet(vienna, movedAtUnixMilliseconds: move)))
        let snapshot = archive.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
        let read = try MemberArchive.decodeSnapshot(snapshot, version: 2, context: Self.context).archive
        #expect(read.water.zones == archive.water.zones && read.water.zones.changes.count == 1)
        for moved in [nil, move] {
            let record = MemberArchive.encodeRecord(
                .water(.timeZoneSet(vienna, movedAtUnixMilliseconds: moved)), sequence: 2)
            let decoded = try MemberArchive.decodeRecord(record[...], context: Self.context).mutation
            #expect(decoded == .water(.timeZoneSet(vienna, movedAtUnixMilliseconds: moved)))
        }
        // A stored move that replaying does not give back (its first day altered) is corruption.
        var altered = try WaterArchiveV1.MemberSnapshot(serializedBytes: snapshot)
        altered.zoneChanges[0].firstDay += 3
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeSnapshot(altered.serializedBytes(), version: 2, context: Self.context)
        }
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
