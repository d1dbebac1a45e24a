import WaterCore

/// Water entries as the columns of `EntryColumns` (proto/archive.proto), in log order.
///
/// Times are stored as differences from the previous entry, and ids as their 48-bit time part
/// minus the entry's time (0 for the time-ordered ids the client makes) plus an index into a
/// table of distinct 80-bit tails (usually one per installation). After zlib that is a few
/// bytes an entry instead of the 16 a random id alone would take. Drinks are an index into a
/// table of distinct drink and factor pairs, and no column at all while every entry is plain
/// water (as every archive from before drinks is); likewise who logged each entry for its owner.
enum EntryColumns {
    static func encode(_ entries: [WaterEntry]) -> WaterArchiveV1.EntryColumns {
        var columns = WaterArchiveV1.EntryColumns()
        columns.atDeltaMs.reserveCapacity(entries.count)
        columns.amountMl.reserveCapacity(entries.count)
        columns.idTimeDeltaMs.reserveCapacity(entries.count)
        columns.idTailIndex.reserveCapacity(entries.count)
        var tailIndex: [Tail: UInt32] = [:]
        var previous: Int64 = 0
        var kindIndex: [DrinkKey: UInt32] = [:]
        var drinkIndex: [UInt32] = []
        // Who logged each entry for the owner: no column while the owner logged them all.
        let madeBy = entries.contains(where: { $0.madeBy != 0 }) ? entries.map(\.madeBy) : []
        for entry in entries {
            if entry.isPlainWater {
                drinkIndex.append(0)
            } else {
                let key = DrinkKey(name: entry.drink, factorHundredths: entry.factorHundredths)
                if let index = kindIndex[key] {
                    drinkIndex.append(index)
                } else {
                    columns.drinkKinds.append(
                        WaterArchiveV1.DrinkKind(name: key.name, factorHundredths: UInt32(key.factorHundredths)))
                    kindIndex[key] = UInt32(columns.drinkKinds.count)
                    drinkIndex.append(UInt32(columns.drinkKinds.count))
                }
            }
            columns.atDeltaMs.append(entry.unixMilliseconds &- previous)
            previous = entry.unixMilliseconds
            columns.amountMl.append(entry.amountMillilitres)
            columns.idTimeDeltaMs.append(Int64(entry.id.high >> 16) &- entry.unixMilliseconds)
            let tail = Tail(id: entry.id)
            if let index = tailIndex[tail] {
                columns.idTailIndex.append(index)
            } else {
                let index = UInt32(columns.idTails.count)
                tailIndex[tail] = index
                columns.idTails.append(tail.bytes)
                columns.idTailIndex.append(index)
            }
        }
        if !columns.drinkKinds.isEmpty { columns.drinkIndex = drinkIndex }
        columns.madeBy = madeBy
        return columns
    }

    static func decode(_ columns: WaterArchiveV1.EntryColumns) throws(ArchiveError) -> [WaterEntry] {
        let count = columns.atDeltaMs.count
        guard columns.amountMl.count == count, columns.idTimeDeltaMs.count == count, columns.idTailIndex.count == count
        else { throw StoredValues.corrupt("entry columns have different lengths") }
        let tails = try columns.idTails.map { (bytes) throws(ArchiveError) -> Tail in
            guard bytes.count == 10 else { throw StoredValues.corrupt("an id tail has \(bytes.count) bytes") }
            return Tail(bytes: bytes)
        }
        guard columns.drinkIndex.isEmpty || columns.drinkIndex.count == count,
            columns.madeBy.isEmpty || columns.madeBy.count == count
        else {
            throw StoredValues.corrupt("entry columns have different lengths")
        }
        let kinds =
            try [DrinkKey(name: Drink.waterName, factorHundredths: HydrationFactor.water)]
            + columns.drinkKinds.map { (kind) throws(ArchiveError) -> DrinkKey in
                let (name, factor) = try StoredValues.drinkUse(name: kind.name, factorHundredths: kind.factorHundredths)
                return DrinkKey(name: name, factorHundredths: factor)
            }
        var entries: [WaterEntry] = []
        entries.reserveCapacity(count)
        var time: Int64 = 0
        for index in 0..<count {
            time = time &+ columns.atDeltaMs[index]
            let idTime = time &+ columns.idTimeDeltaMs[index]
            let tailIndex = Int(columns.idTailIndex[index])
            guard idTime >= 0, idTime < 1 << 48, tailIndex < tails.count else {
                throw StoredValues.corrupt("entry \(index) has an id that does not fit")
            }
            let tail = tails[tailIndex]
            let kindIndex = columns.drinkIndex.isEmpty ? 0 : Int(columns.drinkIndex[index])
            guard kindIndex < kinds.count else {
                throw StoredValues.corrupt("entry \(index) has a drink that is not kept")
            }
            entries.append(
                WaterEntry(
                    id: RecordID(high: UInt64(idTime) << 16 | UInt64(tail.versionAndCounter), low: tail.low),
                    amountMillilitres: columns.amountMl[index], unixMilliseconds: time, drink: kinds[kindIndex].name,
                    factorHundredths: kinds[kindIndex].factorHundredths,
                    madeBy: columns.madeBy.isEmpty ? 0 : columns.madeBy[index]))
        }
        return entries
    }

    /// A drink as one or more entries were logged with it.
    private struct DrinkKey: Hashable {
        var name: String
        var factorHundredths: Int32
    }

    /// An id's last 80 bits: the 16 after its time part, and the low 64.
    private struct Tail: Hashable {
        var versionAndCounter: UInt16
        var low: UInt64

        init(id: RecordID) {
            versionAndCounter = UInt16(truncatingIfNeeded: id.high)
            low = id.low
        }

        init(bytes: [UInt8]) {
            versionAndCounter = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            low = bytes[2..<10].reduce(0) { $0 << 8 | UInt64($1) }
        }

        var bytes: [UInt8] { BigEndian.bytes(versionAndCounter) + BigEndian.bytes(low) }
    }
}
