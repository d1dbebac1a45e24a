import WaterCodec
import WaterCore

/// Conversions between domain values and the stored messages of `proto/archive.proto`, shared
/// by snapshots and journal records. Every decode checks what the domain would never produce.
enum StoredValues {
    static func corrupt(_ what: String) -> ArchiveError {
        ArchiveError(.corrupt, what)
    }

    static func recordID(_ bytes: [UInt8], _ what: String) throws(ArchiveError) -> RecordID {
        guard let id = RecordID(bytes: bytes) else { throw corrupt("\(what) has an id of \(bytes.count) bytes") }
        return id
    }

    /// Plain water is written as it was before drinks existed: no drink, no factor.
    static func stored(_ entry: WaterEntry) -> WaterArchiveV1.StoredEntry {
        let water = entry.isPlainWater
        return WaterArchiveV1.StoredEntry(
            id: entry.id.bytes, amountMl: entry.amountMillilitres, atUnixMs: entry.unixMilliseconds,
            drink: water ? "" : entry.drink, factorHundredths: water ? 0 : UInt32(entry.factorHundredths),
            madeBy: entry.madeBy)
    }

    static func entry(_ stored: WaterArchiveV1.StoredEntry?) throws(ArchiveError) -> WaterEntry {
        guard let stored else { throw corrupt("a record has no entry") }
        let (drink, factor) = try drinkUse(name: stored.drink, factorHundredths: stored.factorHundredths)
        return WaterEntry(
            id: try recordID(stored.id, "an entry"), amountMillilitres: stored.amountMl,
            unixMilliseconds: stored.atUnixMs, drink: drink, factorHundredths: factor, madeBy: stored.madeBy)
    }

    /// An entry's drink and factor as stored: none (an entry from before drinks) is water at 1.00.
    static func drinkUse(name: String, factorHundredths: UInt32) throws(ArchiveError) -> (String, Int32) {
        if name.isEmpty && factorHundredths == 0 { return (Drink.waterName, HydrationFactor.water) }
        guard Drink.isValidName(name), factorHundredths <= 200,
            HydrationFactor.allowedHundredths.contains(Int32(factorHundredths))
        else { throw corrupt("an entry's drink or factor is not one a drink can have") }
        return (name, Int32(factorHundredths))
    }

    static func stored(_ cup: NamedCup) -> WaterArchiveV1.StoredCup {
        WaterArchiveV1.StoredCup(name: cup.name, amountMl: cup.amountMillilitres, drink: cup.drink ?? "")
    }

    /// A named cup as stored; the diary's load-time checks judge its name and amount.
    static func cup(_ stored: WaterArchiveV1.StoredCup) -> NamedCup {
        NamedCup(
            name: stored.name, amountMillilitres: stored.amountMl, drink: stored.drink.isEmpty ? nil : stored.drink)
    }

    static func privacy(_ stored: UInt32) throws(ArchiveError) -> Privacy {
        guard let level = Privacy(rawValue: Int(stored)) else { throw corrupt("a privacy level of \(stored)") }
        return level
    }

    static func stored(_ drink: Drink) -> WaterArchiveV1.StoredDrink {
        WaterArchiveV1.StoredDrink(
            name: drink.name, factorHundredths: UInt32(drink.factorHundredths), icon: drink.icon,
            displayName: drink.displayName)
    }

    static func drink(_ stored: WaterArchiveV1.StoredDrink?) throws(ArchiveError) -> Drink {
        guard let stored else { throw corrupt("a record has no drink") }
        let (name, factor) = try drinkUse(name: stored.name, factorHundredths: stored.factorHundredths)
        return Drink(name: name, factorHundredths: factor, icon: stored.icon, displayName: stored.displayName)
    }

    static func stored(_ habit: Habit) -> WaterArchiveV1.StoredHabit {
        WaterArchiveV1.StoredHabit(
            id: habit.id.bytes, name: habit.name, icon: Int32(habit.icon.rawValue),
            color: Int32(habit.color.rawValue), createdAtUnixMs: habit.createdAtUnixMilliseconds,
            checkedDays: habit.checkedDays.map { Int32($0.daysSinceEpoch) }.sorted())
    }

    static func habit(_ stored: WaterArchiveV1.StoredHabit?) throws(ArchiveError) -> Habit {
        guard let stored else { throw corrupt("a record has no habit") }
        guard let icon = HabitIcon(rawValue: Int(stored.icon)), let color = HabitColor(rawValue: Int(stored.color))
        else {
            throw corrupt("habit \(stored.name) has icon \(stored.icon) and colour \(stored.color)")
        }
        return Habit(
            id: try recordID(stored.id, "a habit"), name: stored.name, icon: icon, color: color,
            createdAtUnixMilliseconds: stored.createdAtUnixMs,
            checkedDays: Set(stored.checkedDays.map { LocalDate(daysSinceEpoch: Int($0)) }))
    }

    static func stored(_ item: TodoItem) -> WaterArchiveV1.StoredTodo {
        var stored = WaterArchiveV1.StoredTodo(
            id: item.id.bytes, text: item.text, done: item.isDone, addedBy: item.addedBy,
            addedAtUnixMs: item.addedAtUnixMilliseconds, completedBy: item.completedBy ?? 0,
            completedAtUnixMs: item.completedAtUnixMilliseconds ?? 0)
        if let chore = item.chore { ChoreColumns.store(chore, in: &stored) }
        return stored
    }

    static func todo(_ stored: WaterArchiveV1.StoredTodo?) throws(ArchiveError) -> TodoItem {
        guard let stored else { throw corrupt("a record has no todo item") }
        return TodoItem(
            id: try recordID(stored.id, "a todo item"), text: stored.text, isDone: stored.done,
            addedBy: stored.addedBy, addedAtUnixMilliseconds: stored.addedAtUnixMs,
            completedBy: stored.done ? stored.completedBy : nil,
            completedAtUnixMilliseconds: stored.done ? stored.completedAtUnixMs : nil,
            chore: try ChoreColumns.chore(stored))
    }

    static func timeZone(_ identifier: String, in context: ArchiveContext) throws(ArchiveError) -> MemberTimeZone {
        guard let zone = context.timeZones.zone(named: identifier) else {
            throw corrupt("time zone \"\(identifier)\" is unknown to this system")
        }
        return zone
    }

    /// Decodes a stored protobuf message; a decoding failure is corruption.
    static func decode<Message: ProtoMessage>(_ type: Message.Type, _ bytes: some Collection<UInt8>)
        throws(ArchiveError) -> Message
    {
        do {
            return try Message(serializedBytes: bytes)
        } catch {
            throw corrupt("a \(Message.protoName) does not decode: \(error.message)")
        }
    }
}
