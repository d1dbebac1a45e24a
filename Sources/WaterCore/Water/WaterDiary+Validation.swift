/// Checking a request about the member's drinks or goal: each `validate...` method returns the
/// mutation to journal (or throws what is wrong), and changes nothing; ``apply(_:)`` then changes the
/// diary.
extension WaterDiary {
    /// What logging a drink means. `amount` nil is the usual cup, `unixMilliseconds` nil is now,
    /// `drink` nil is water; the entry keeps the drink's factor of now. `madeBy` is who logs it
    /// for the owner (0: the owner).
    public func validateLog(
        id: RecordID, amountMillilitres: Int32?, unixMilliseconds: Int64?, drink: Drink? = nil, madeBy: UInt64 = 0,
        now: Int64
    ) throws(DomainError) -> LogDecision {
        let entry = WaterEntry(
            id: id, amountMillilitres: amountMillilitres ?? usualCupMillilitres,
            unixMilliseconds: unixMilliseconds ?? now, drink: drink?.name ?? Drink.waterName,
            factorHundredths: drink?.factorHundredths ?? HydrationFactor.water, madeBy: madeBy)
        if let existing = self.entry(id) {
            // A replay may leave out what the original left out; what it states must match
            // (a replay's drink by name: its factor may have changed since).
            let sameAmount = amountMillilitres.map { $0 == existing.amountMillilitres } ?? true
            let sameTime = unixMilliseconds.map { $0 == existing.unixMilliseconds } ?? true
            let sameDrink = drink.map { $0.name == existing.drink } ?? true
            guard sameAmount && sameTime && sameDrink else {
                throw DomainError(.conflict, field: "entry_id", "entry id \(id) is already used for another drink")
            }
            return .duplicate(existing)
        }
        try Self.check(amount: entry.amountMillilitres)
        try Self.check(time: entry.unixMilliseconds, now: now)
        try checkRoom(forOne: date(of: entry), field: unixMilliseconds == nil ? nil : "at_unix_ms")
        return .log(.logged(entry))
    }

    /// Changes an entry's amount, time or both (nil keeps the current value).
    public func validateEdit(id: RecordID, amountMillilitres: Int32?, unixMilliseconds: Int64?, now: Int64)
        throws(DomainError) -> WaterMutation
    {
        guard var entry = self.entry(id) else { throw Self.unknownEntry(id) }
        if let amountMillilitres {
            try Self.check(amount: amountMillilitres)
            entry.amountMillilitres = amountMillilitres
        }
        if let unixMilliseconds {
            try Self.check(time: unixMilliseconds, now: now)
            let from = date(of: entry)
            entry.unixMilliseconds = unixMilliseconds
            // A drink moved to another day adds to that day (and maybe year), however full.
            try checkRoom(forOne: date(of: entry), movedFrom: from, field: "at_unix_ms")
        }
        return .edited(entry)
    }

    public func validateDelete(id: RecordID) throws(DomainError) -> WaterMutation {
        guard self.entry(id) != nil else { throw Self.unknownEntry(id) }
        return .deleted(id)
    }

    /// Deletes the entry logged most recently, when it counts in this week: a week that is over
    /// (its board settled) is never changed by an undo, least of all by a second undo reaching
    /// further back. Such a drink can still be removed by its id.
    public func validateUndo(now: Int64) throws(DomainError) -> WaterMutation {
        guard let last = entries.last else { throw DomainError(.notFound, "there is no entry to undo") }
        let day = date(of: last)
        guard ISOWeek(containing: day) == ISOWeek(containing: today(atUnixMilliseconds: now)) else {
            throw DomainError(
                .notFound,
                "there is nothing to undo this week: the drink you logged last is from \(day), in a week that is "
                    + "over; remove it by its id (water-client rm) if you mean it")
        }
        return .deleted(last.id)
    }

    /// Sets the goal of today and the days after it.
    public func validateGoal(_ goal: Int32, now: Int64) throws(DomainError) -> WaterMutation {
        guard WaterLimits.dailyGoalMillilitres.contains(goal) else {
            throw .invalid("daily_goal_ml", "a daily goal must be between 500 and 10000 ml, got \(goal)")
        }
        return .goalSet(goal, from: today(atUnixMilliseconds: now))
    }

    /// A drink's amount, as logged or changed (also checked by a client before it keeps a write
    /// for later).
    public static func check(amount: Int32) throws(DomainError) {
        guard WaterLimits.amountMillilitres.contains(amount) else {
            throw .invalid("amount_ml", "a drink must be between 1 and 2000 ml, got \(amount)")
        }
    }

    /// A drink's moment, as logged or changed: not after `now` (with the clock skew allowed),
    /// not before 2000.
    public static func check(time: Int64, now: Int64) throws(DomainError) {
        guard time <= now + allowedClockSkewMilliseconds else {
            throw .invalid("at_unix_ms", "that time is in the future; a drink can only be logged once it is drunk")
        }
        guard time >= earliestUnixMilliseconds else {
            // A sentence for the person who typed the time; that the field counts milliseconds
            // since 1970 is in proto/README.md, for whoever writes a client.
            throw .invalid("at_unix_ms", "that time is before the year 2000; a drink is logged at a time after it")
        }
    }

    private static func unknownEntry(_ id: RecordID) -> DomainError {
        DomainError(.notFound, field: "entry_id", "there is no entry \(id)")
    }
}

/// What a log request comes to.
public enum LogDecision: Hashable, Sendable {
    /// A new drink: journal and apply this.
    case log(WaterMutation)
    /// The id is already stored, as this entry: nothing to write.
    case duplicate(WaterEntry)
}
