import Testing
import WaterCore
import WaterZoneInfo

@testable import WaterStore

/// Issue 32, item 20: a drink's display name on disk. The accounts and their log records from
/// before it (a `StoredDrink` without field 4) read with no display name.
@Suite("Drinks' display names on disk")
struct DrinkDisplayNameFormatTests {
    static let context = ArchiveContext(defaultTimeZone: .utc, timeZones: ZoneInfo.system)

    @Test("accounts written before display names read with none; the bytes are those of before")
    func before() throws {
        // A StoredDrink as the code before wrote it, byte by byte: name "tea" (field 1), factor
        // 100 (field 2), icon "T" (field 3), and no field 4.
        let tea: [UInt8] = [0x0A, 0x03, 0x74, 0x65, 0x61, 0x10, 0x64, 0x1A, 0x01, 0x54]
        let water = WaterArchiveV1.StoredDrink(name: "water", factorHundredths: 100).serializedBytes()
        var snapshot = WaterArchiveV1.AccountsSnapshot(lastSequence: 1, journalGeneration: 1, nextMemberID: 2)
            .serializedBytes()
        for drink in [water, tea] { snapshot += [0x32, UInt8(drink.count)] + drink }  // field 6, drinks
        let (book, _, _) = try AccountBook.decodeSnapshot(snapshot, version: 1, context: Self.context)
        #expect(book.drinks.drinks.map(\.name) == ["water", "tea"])
        #expect(book.drinks.drinks.allSatisfy { $0.displayName.isEmpty })
        #expect(book.drinks.drink(named: "tea")?.icon == "T")
        // A drink without a display name is written as before.
        #expect(StoredValues.stored(Drink(name: "tea", factorHundredths: 100, icon: "T")).serializedBytes() == tea)
    }

    @Test("a display name is kept in the snapshot and in the log record that sets it")
    func kept() throws {
        var book = try AccountBook.decodeSnapshot(
            WaterArchiveV1.AccountsSnapshot(lastSequence: 1, journalGeneration: 1, nextMemberID: 2).serializedBytes(),
            version: 1, context: Self.context
        ).0
        book.apply(
            .drink(try book.drinks.validateSet("tea", factorHundredths: nil, icon: nil, displayName: "Kräutertee")))
        let almdudler = Drink(name: "almdudler", factorHundredths: 100, displayName: "Almdudler")
        book.apply(.drink(try book.drinks.validateAdd(almdudler)))
        let (read, _, _) = try AccountBook.decodeSnapshot(
            book.encodeSnapshot(lastSequence: 3, journalGeneration: 1), version: 1, context: Self.context)
        #expect(read.drinks.drink(named: "tea")?.displayName == "Kräutertee")
        #expect(read.drinks == book.drinks)
        let mutation = AccountMutation.drink(.set(almdudler))
        let bytes = AccountBook.encodeRecord(mutation, sequence: 1)
        #expect(try AccountBook.decodeRecord(bytes[...], context: Self.context).mutation == mutation)
    }
}
