import WaterCore

/// A member's archive on disk: settings, goal changes and habits as messages, the water
/// entries as compressed columns (``EntryColumns``).
extension MemberArchive: ArchiveModel {
    public typealias Mutation = MemberMutation

    public static let kind = ArchiveKind.member
    /// 1: entries as rows with full ids. 2: entries as columns (a few bytes an entry).
    public static let snapshotVersions: ClosedRange<UInt16> = 1...2

    public init(context: ArchiveContext) {
        self.init(timeZone: context.defaultTimeZone)
    }

    public func encodeSnapshot(lastSequence: UInt64, journalGeneration: UInt64) -> [UInt8] {
        WaterArchiveV1.MemberSnapshot(
            lastSequence: lastSequence, journalGeneration: journalGeneration,
            usualCupMl: water.usualCupMillilitres, timeZone: water.timeZone.identifier,
            goalChanges: water.goals.changes.map {
                WaterArchiveV1.GoalChange(fromDay: Int32($0.from.daysSinceEpoch), goalMl: $0.value)
            },
            entries: EntryColumns.encode(water.entries),
            habits: habits.habits.map(StoredValues.stored),
            usualDrink: water.usualDrink == Drink.waterName ? "" : water.usualDrink,
            cups: water.cups.map(StoredValues.stored),
            excusedDays: water.excused.sorted { $0.key < $1.key }.map {
                WaterArchiveV1.ExcusedDay(day: Int32($0.key.daysSinceEpoch), reason: $0.value)
            }, privacy: UInt32(privacy.rawValue),
            privacyOriginal: privacyHistory.changes.isEmpty ? 0 : UInt32(privacyHistory.original.rawValue),
            privacyChanges: privacyHistory.changes.map {
                WaterArchiveV1.PrivacyChange(fromDay: Int32($0.from.daysSinceEpoch), privacy: UInt32($0.value.rawValue))
            },
            originalTimeZone: water.zones.changes.isEmpty ? "" : water.zones.original.identifier,
            zoneChanges: water.zones.changes.map {
                WaterArchiveV1.ZoneChange(
                    fromUnixMs: $0.fromUnixMilliseconds, firstDay: Int32($0.firstDay.daysSinceEpoch),
                    timeZone: $0.zone.identifier)
            }
        ).serializedBytes()
    }

    public static func decodeSnapshot(_ body: [UInt8], version: UInt16, context: ArchiveContext)
        throws(ArchiveError) -> (archive: MemberArchive, lastSequence: UInt64, journalGeneration: UInt64)
    {
        let snapshot = try StoredValues.decode(WaterArchiveV1.MemberSnapshot.self, body)
        var archive = try zones(of: snapshot, context: context)
        archive.apply(.water(.usualCupSet(snapshot.usualCupMl)))
        if !snapshot.usualDrink.isEmpty { archive.apply(.water(.usualDrinkSet(snapshot.usualDrink))) }
        for stored in snapshot.cups { archive.apply(.water(.cupSaved(StoredValues.cup(stored)))) }
        try applyPrivacy(of: snapshot, to: &archive)
        for change in snapshot.goalChanges {
            archive.apply(.water(.goalSet(change.goalMl, from: LocalDate(daysSinceEpoch: Int(change.fromDay)))))
        }
        guard archive.water.goals.changes.count == snapshot.goalChanges.count else {
            throw StoredValues.corrupt("goal changes are out of order")
        }
        // Version 1 kept entries as rows; version 2 as columns. Both load into the same diary,
        // and the next snapshot is written as version 2: that is the migration.
        let entries =
            version == 1
            ? try snapshot.entryRows.map { (row) throws(ArchiveError) in try StoredValues.entry(row) }
            : try EntryColumns.decode(snapshot.entries ?? WaterArchiveV1.EntryColumns())
        for stored in snapshot.excusedDays {
            archive.apply(.water(.excused(LocalDate(daysSinceEpoch: Int(stored.day)), reason: stored.reason)))
        }
        archive.water.logAll(entries)
        guard archive.water.entries.count == entries.count else { throw StoredValues.corrupt("entry ids repeat") }
        for stored in snapshot.habits.reversed() {  // stored newest first; adding puts each first
            var habit = try StoredValues.habit(stored)
            let days = habit.checkedDays
            habit.checkedDays = []
            archive.apply(.habit(.added(habit)))
            for day in days { archive.apply(.habit(.checked(habit.id, day))) }
        }
        guard archive.habits.habits.count == snapshot.habits.count else {
            throw StoredValues.corrupt("habit ids repeat")
        }
        return (archive, snapshot.lastSequence, snapshot.journalGeneration)
    }

    /// A new archive in the snapshot's zones, each move checked as it is replayed.
    private static func zones(of snapshot: WaterArchiveV1.MemberSnapshot, context: ArchiveContext)
        throws(ArchiveError) -> MemberArchive
    {
        let current = try StoredValues.timeZone(snapshot.timeZone, in: context)
        guard !snapshot.zoneChanges.isEmpty else { return MemberArchive(timeZone: current) }
        var archive = MemberArchive(timeZone: try StoredValues.timeZone(snapshot.originalTimeZone, in: context))
        for change in snapshot.zoneChanges {
            let zone = try StoredValues.timeZone(change.timeZone, in: context)
            archive.apply(.water(.timeZoneSet(zone, movedAtUnixMilliseconds: change.fromUnixMs)))
        }
        let replayed = archive.water.zones.changes.map {
            WaterArchiveV1.ZoneChange(
                fromUnixMs: $0.fromUnixMilliseconds, firstDay: Int32($0.firstDay.daysSinceEpoch),
                timeZone: $0.zone.identifier)
        }
        guard replayed == snapshot.zoneChanges, archive.water.timeZone == current else {
            throw StoredValues.corrupt("the time zone moves are out of order")
        }
        return archive
    }

    /// The snapshot's privacy levels, each from its day.
    private static func applyPrivacy(of snapshot: WaterArchiveV1.MemberSnapshot, to archive: inout MemberArchive)
        throws(ArchiveError)
    {
        let current = try StoredValues.privacy(snapshot.privacy)
        guard !snapshot.privacyChanges.isEmpty else { return archive.apply(.privacySet(current, from: nil)) }
        archive.apply(.privacySet(try StoredValues.privacy(snapshot.privacyOriginal), from: nil))
        for change in snapshot.privacyChanges {
            let from = LocalDate(daysSinceEpoch: Int(change.fromDay))
            archive.apply(.privacySet(try StoredValues.privacy(change.privacy), from: from))
        }
        guard archive.privacyHistory.changes.count == snapshot.privacyChanges.count, archive.privacy == current else {
            throw StoredValues.corrupt("the privacy changes are out of order")
        }
    }

    public static func record(_ mutation: MemberMutation, sequence: UInt64) -> WaterArchiveV1.JournalRecord {
        var record = WaterArchiveV1.JournalRecord(sequence: sequence)
        switch mutation {
        case .water(.logged(let entry)):
            record.kind = .entryLogged
            record.entry = StoredValues.stored(entry)
        case .water(.edited(let entry)):
            record.kind = .entryEdited
            record.entry = StoredValues.stored(entry)
        case .water(.deleted(let id)):
            record.kind = .entryDeleted
            record.id = id.bytes
        case .water(.goalSet(let goal, let from)):
            record.kind = .goalSet
            record.goal = WaterArchiveV1.GoalChange(fromDay: Int32(from.daysSinceEpoch), goalMl: goal)
        case .water(.usualCupSet(let cup)):
            record.kind = .usualCupSet
            record.amountMl = cup
        case .water(.usualDrinkSet(let drink)):
            record.kind = .usualDrinkSet
            record.text = drink
        case .water(.cupSaved(let cup)):
            record.kind = .cupSaved
            record.cup = StoredValues.stored(cup)
        case .water(.cupRemoved(let name)):
            record.kind = .cupRemoved
            record.text = name
        case .water(.timeZoneSet(let zone, let moved)):
            record.kind = .timeZoneSet
            record.text = zone.identifier
            record.atUnixMs = moved ?? 0
        case .water(.excused(let day, let reason)):
            record.kind = .dayExcused
            record.day = Int32(day.daysSinceEpoch)
            record.text = reason
        case .water(.unexcused(let day)):
            record.kind = .dayUnexcused
            record.day = Int32(day.daysSinceEpoch)
        case .habit(.added(let habit)):
            record.kind = .habitAdded
            record.habit = StoredValues.stored(habit)
        case .habit(.checked(let id, let day)):
            record.kind = .habitChecked
            record.id = id.bytes
            record.day = Int32(day.daysSinceEpoch)
        case .habit(.unchecked(let id, let day)):
            record.kind = .habitUnchecked
            record.id = id.bytes
            record.day = Int32(day.daysSinceEpoch)
        case .habit(.deleted(let id)):
            record.kind = .habitDeleted
            record.id = id.bytes
        case .privacySet(let level, let from):
            record.kind = .privacySet
            record.privacy = UInt32(level.rawValue)
            record.day = from.map { Int32($0.daysSinceEpoch) } ?? 0
        }
        return record
    }

    public static func decodeRecord(_ bytes: ArraySlice<UInt8>, context: ArchiveContext) throws(ArchiveError)
        -> (mutation: MemberMutation, sequence: UInt64)
    {
        let record = try StoredValues.decode(WaterArchiveV1.JournalRecord.self, bytes)
        let day = LocalDate(daysSinceEpoch: Int(record.day))
        let mutation: MemberMutation
        switch record.kind {
        case .entryLogged: mutation = .water(.logged(try StoredValues.entry(record.entry)))
        case .entryEdited: mutation = .water(.edited(try StoredValues.entry(record.entry)))
        case .entryDeleted: mutation = .water(.deleted(try StoredValues.recordID(record.id, "a deletion")))
        case .goalSet:
            guard let goal = record.goal else { throw StoredValues.corrupt("a goal record has no goal") }
            mutation = .water(.goalSet(goal.goalMl, from: LocalDate(daysSinceEpoch: Int(goal.fromDay))))
        case .usualCupSet: mutation = .water(.usualCupSet(record.amountMl))
        case .usualDrinkSet: mutation = .water(.usualDrinkSet(record.text))
        case .cupSaved:
            guard let cup = record.cup else { throw StoredValues.corrupt("a cup record has no cup") }
            mutation = .water(.cupSaved(StoredValues.cup(cup)))
        case .cupRemoved: mutation = .water(.cupRemoved(record.text))
        case .timeZoneSet:
            let zone = try StoredValues.timeZone(record.text, in: context)
            mutation = .water(.timeZoneSet(zone, movedAtUnixMilliseconds: record.atUnixMs == 0 ? nil : record.atUnixMs))
        case .dayExcused: mutation = .water(.excused(day, reason: record.text))
        case .dayUnexcused: mutation = .water(.unexcused(day))
        case .habitAdded: mutation = .habit(.added(try StoredValues.habit(record.habit)))
        case .habitChecked: mutation = .habit(.checked(try StoredValues.recordID(record.id, "a check-in"), day))
        case .habitUnchecked: mutation = .habit(.unchecked(try StoredValues.recordID(record.id, "a check-in"), day))
        case .habitDeleted: mutation = .habit(.deleted(try StoredValues.recordID(record.id, "a habit deletion")))
        case .privacySet:
            mutation = .privacySet(try StoredValues.privacy(record.privacy), from: record.day == 0 ? nil : day)
        default: throw StoredValues.corrupt("a member's journal has a record of kind \(record.kind.rawValue)")
        }
        return (mutation, record.sequence)
    }
}
