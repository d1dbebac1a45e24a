import Testing
import WaterCore
import WaterProtocol
import WaterZoneInfo

@testable import WaterStore

/// Drinks on disk: entries keep their drink and factor, the household keeps its list, and every
/// archive written before drinks existed (messages without the new fields) reads as water at
/// 1.00 with the default list.
@Suite("Drinks on disk")
struct DrinkFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)
    static let noon: Int64 = 1_796_040_000_000

    static func id(_ n: UInt64) -> RecordID {
        RecordID(high: UInt64(noon) << 16 | 0x7cc3, low: 0x8000_0000_0000_0000 | n)
    }

    /// What the code before drinks wrote: the same messages without any of the new fields.
    static func snapshotBeforeDrinks() -> [UInt8] {
        WaterArchiveV1.MemberSnapshot(
            lastSequence: 2, journalGeneration: 1, usualCupMl: 300, timeZone: "UTC",
            goalChanges: [WaterArchiveV1.GoalChange(fromDay: 20_000, goalMl: 2000)],
            entries: WaterArchiveV1.EntryColumns(
                atDeltaMs: [noon, 60_000], amountMl: [250, 330], idTimeDeltaMs: [0, -60_000], idTailIndex: [0, 1],
                idTails: [[0x7c, 0xc3, 0x80, 0, 0, 0, 0, 0, 0, 1], [0x7c, 0xc3, 0x80, 0, 0, 0, 0, 0, 0, 2]])
        ).serializedBytes()
    }

    @Test("a member's snapshot and log records from before drinks read as water at 1.00")
    func memberArchiveBeforeDrinks() throws {
        let (archive, last, _) = try MemberArchive.decodeSnapshot(
            Self.snapshotBeforeDrinks(), version: 2, context: Self.context)
        #expect(last == 2)
        #expect(archive.water.entries.map(\.amountMillilitres) == [250, 330])
        #expect(archive.water.entries.allSatisfy { $0.drink == "water" && $0.factorHundredths == 100 })
        #expect(archive.water.usualDrink == "water")
        let day = archive.water.day(archive.water.date(of: archive.water.entries[0]))
        #expect((day.amountMillilitres, day.rawMillilitres) == (580, 580))
        let record = WaterArchiveV1.JournalRecord(
            sequence: 3, kind: .entryLogged,
            entry: WaterArchiveV1.StoredEntry(id: Self.id(9).bytes, amountMl: 200, atUnixMs: Self.noon + 120_000))
        let (mutation, _) = try MemberArchive.decodeRecord(record.serializedBytes()[...], context: Self.context)
        #expect(
            mutation
                == .water(
                    .logged(WaterEntry(id: Self.id(9), amountMillilitres: 200, unixMilliseconds: Self.noon + 120_000))))
    }

    @Test("entries keep drink and factor through a snapshot and a log record; plain water adds no bytes")
    func roundTrip() throws {
        var archive = MemberArchive(timeZone: .utc)
        let entries = [
            WaterEntry(id: Self.id(1), amountMillilitres: 250, unixMilliseconds: Self.noon),
            WaterEntry(
                id: Self.id(2), amountMillilitres: 200, unixMilliseconds: Self.noon + 1, drink: "milk",
                factorHundredths: 150),
            WaterEntry(
                id: Self.id(3), amountMillilitres: 300, unixMilliseconds: Self.noon + 2, drink: "juice",
                factorHundredths: 139),
            WaterEntry(
                id: Self.id(4), amountMillilitres: 300, unixMilliseconds: Self.noon + 3, drink: "juice",
                factorHundredths: 50),
            WaterEntry(
                id: Self.id(5), amountMillilitres: 200, unixMilliseconds: Self.noon + 4, drink: "milk",
                factorHundredths: 150),
        ]
        for entry in entries { archive.apply(.water(.logged(entry))) }
        archive.apply(.water(.usualDrinkSet("tea")))
        archive.apply(.water(.cupSaved(NamedCup(name: "mug", amountMillilitres: 350))))
        archive.apply(.water(.cupSaved(NamedCup(name: "latte", amountMillilitres: 250, drink: "milk"))))
        for change: WaterMutation in [
            .cupSaved(NamedCup(name: "latte", amountMillilitres: 250, drink: "milk")), .cupRemoved("mug"),
        ] {
            let bytes = MemberArchive.encodeRecord(.water(change), sequence: 7)
            #expect(try MemberArchive.decodeRecord(bytes[...], context: Self.context).mutation == .water(change))
        }
        let usual = MemberArchive.encodeRecord(.water(.usualDrinkSet("tea")), sequence: 6)
        #expect(
            try MemberArchive.decodeRecord(usual[...], context: Self.context).mutation == .water(.usualDrinkSet("tea")))
        let body = archive.encodeSnapshot(lastSequence: 5, journalGeneration: 1)
        let (read, _, _) = try MemberArchive.decodeSnapshot(
            body, version: MemberArchive.snapshotVersion, context: Self.context)
        #expect(read == archive)
        #expect(read.water.day(read.water.date(of: entries[0])).amountMillilitres == 250 + 300 + 417 + 150 + 300)
        let columns = try WaterArchiveV1.MemberSnapshot(serializedBytes: body).entries
        #expect(columns?.drinkIndex == [0, 1, 2, 3, 1])
        #expect(columns?.drinkKinds.map(\.name) == ["milk", "juice", "juice"])
        for entry in entries {
            let bytes = MemberArchive.encodeRecord(.water(.logged(entry)), sequence: 1)
            #expect(
                try MemberArchive.decodeRecord(bytes[...], context: Self.context).mutation == .water(.logged(entry)))
        }
        // All water: the snapshot is exactly what the code before drinks wrote.
        var plain = MemberArchive(timeZone: .utc)
        plain.apply(.water(.logged(entries[0])))
        let plainColumns = try WaterArchiveV1.MemberSnapshot(
            serializedBytes: plain.encodeSnapshot(lastSequence: 1, journalGeneration: 1)
        ).entries
        #expect(plainColumns?.drinkIndex == [] && plainColumns?.drinkKinds == [])
    }

    @Test("a stored factor out of range, or a drink index past the table, is corruption")
    func damage() throws {
        var columns = try WaterArchiveV1.MemberSnapshot(serializedBytes: Self.snapshotBeforeDrinks())
        columns.entries?.drinkIndex = [0, 1]
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeSnapshot(columns.serializedBytes(), version: 2, context: Self.context)
        }
        columns.entries?.drinkKinds = [WaterArchiveV1.DrinkKind(name: "tea", factorHundredths: 5000)]
        #expect(throws: ArchiveError.self) {
            try MemberArchive.decodeSnapshot(columns.serializedBytes(), version: 2, context: Self.context)
        }
    }

    @Test("the accounts from before drinks have the default list; a changed list is kept")
    func householdList() throws {
        let before = WaterArchiveV1.AccountsSnapshot(lastSequence: 1, journalGeneration: 1, nextMemberID: 2)
        let (book, _, _) = try AccountBook.decodeSnapshot(before.serializedBytes(), version: 1, context: Self.context)
        #expect(book.drinks == DrinkList())
        var changed = book
        changed.apply(.drink(try changed.drinks.validateAdd(Drink(name: "cocoa", factorHundredths: 120, icon: "🍫"))))
        changed.apply(.drink(try changed.drinks.validateSet("coffee", factorHundredths: 95, icon: nil)))
        changed.apply(.drink(try changed.drinks.validateRemove("sports")))
        let (read, _, _) = try AccountBook.decodeSnapshot(
            changed.encodeSnapshot(lastSequence: 4, journalGeneration: 1), version: 1, context: Self.context)
        #expect(read.drinks == changed.drinks)
        for mutation: AccountMutation in [
            .drink(.set(Drink(name: "cocoa", factorHundredths: 120, icon: "🍫"))), .drink(.removed("sports")),
        ] {
            let bytes = AccountBook.encodeRecord(mutation, sequence: 1)
            #expect(try AccountBook.decodeRecord(bytes[...], context: Self.context).mutation == mutation)
        }
    }
}
