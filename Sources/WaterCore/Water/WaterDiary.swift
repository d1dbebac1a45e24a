/// One member's water diary: settings, goals and entries, with every rule of the WaterDiary
/// seed. Requests are checked by the `validate...` methods, which return the mutation to
/// journal; ``apply(_:)`` then changes the diary. Replaying the journal calls only `apply`.
public struct WaterDiary: Hashable, Sendable {
    /// How far in the future an entry may be, for clocks that disagree a little.
    public static let allowedClockSkewMilliseconds: Int64 = 2 * 60 * 1000
    /// Nothing before 2000-01-01 is a real drink; such a time is a mistake.
    public static let earliestUnixMilliseconds: Int64 = 946_684_800_000
    /// 2000-01-01: nothing of a member's (a habit's check-in, an excused day, a goal) is on a
    /// day before it, which bounds each by the days since.
    public static let earliestDate = LocalDate(daysSinceEpoch: 10_957)

    public private(set) var usualCupMillilitres = WaterLimits.defaultUsualCupMillilitres
    /// A ``Drink`` name; water unless the member chose another.
    public private(set) var usualDrink = Drink.waterName
    /// The member's named cups, in the order they were added.
    public private(set) var cups: [NamedCup] = []
    /// The zones the member's days are counted in, each from when they moved there.
    public private(set) var zones: ZoneHistory
    public private(set) var goals = GoalHistory()
    /// Every entry, in the order it was logged.
    public private(set) var entries: [WaterEntry] = []
    // The indexes below are kept up to date by `apply`, so finding an entry or reading a day
    // costs no scan of the history. They are positions in `entries`, 4 bytes each (a hash
    // table of ids took 36 an entry): a household keeps years of drinks in memory on a
    // Raspberry Pi, and a binary search over them is still well under a microsecond.
    /// Positions ordered by id.
    private var byID: [Int32] = []
    /// Positions ordered by time (then id): the entries of a day are one run.
    private var byTime: [Int32] = []
    /// Per-day totals.
    private var days: [LocalDate: DayTotal] = [:]
    /// Drinks per calendar year, for ``WaterLimits/maximumEntriesPerYear`` at no scan.
    private(set) var entriesByYear: [Int: Int32] = [:]
    /// Excused days and why (sick, travel, the member's words).
    public private(set) var excused: [LocalDate: String] = [:]
    /// The runs of days that break no streak, kept by `apply` (derived, as the indexes are).
    private var streakRuns = StreakRuns()
    /// The first day with a drink, kept by ``withoutEntries`` (which drops the drinks); nil in
    /// a diary with its drinks.
    private var firstDayOfDroppedEntries: LocalDate?

    private struct DayTotal: Hashable, Sendable {
        /// What counts toward the goal.
        var amountMillilitres: Int32 = 0
        var rawMillilitres: Int32 = 0
        var count: Int32 = 0

        /// Adds (`sign` 1) or takes away (-1) one entry.
        mutating func add(_ entry: WaterEntry, sign: Int32) {
            amountMillilitres += sign * entry.countedMillilitres
            rawMillilitres += sign * entry.amountMillilitres
            count += sign
        }
    }

    public init(timeZone: MemberTimeZone) {
        self.zones = ZoneHistory(timeZone)
    }

    /// The zone the member is in now: what today and later days count in.
    public var timeZone: MemberTimeZone { zones.current }

    public var dailyGoalMillilitres: Int32 { goals.currentGoalMillilitres }

    /// 150, 250, 350 and the usual cup, de-duplicated and sorted.
    public var quickCupsMillilitres: [Int32] { WaterLimits.quickCupsMillilitres(usualCup: usualCupMillilitres) }

    public func entry(_ id: RecordID) -> WaterEntry? {
        position(of: id).map { entries[Int($0)] }
    }

    public func date(of entry: WaterEntry) -> LocalDate {
        zones.date(atUnixMilliseconds: entry.unixMilliseconds)
    }

    public func today(atUnixMilliseconds now: Int64) -> LocalDate {
        zones.date(atUnixMilliseconds: now)
    }

    // MARK: Reading

    /// The day's amount, goal and count.
    public func day(_ date: LocalDate) -> WaterDay {
        let total = days[date]
        return WaterDay(
            date: date, amountMillilitres: total?.amountMillilitres ?? 0,
            goalMillilitres: goals.goalMillilitres(on: date), count: Int(total?.count ?? 0),
            rawMillilitres: total?.rawMillilitres ?? 0, excuse: excused[date])
    }

    /// The day's entries, newest first.
    public func entries(on date: LocalDate) -> [WaterEntry] {
        guard days[date] != nil else { return [] }
        // Every instant whose local date is `date` lies within a day and a bit (no zone is
        // more than 26 hours from UTC) of that date's UTC midnights: take that run of the time
        // index and keep exactly the entries the zone puts on `date`.
        let margin: Int64 = 26 * 3_600_000
        let start = Int64(date.daysSinceEpoch) * 86_400_000 - margin
        let end = Int64(date.daysSinceEpoch + 1) * 86_400_000 + margin
        var found: [WaterEntry] = []
        var index = firstByTime(atOrAfter: start)
        while index < byTime.count, entries[Int(byTime[index])].unixMilliseconds < end {
            let entry = entries[Int(byTime[index])]
            if self.date(of: entry) == date { found.append(entry) }
            index += 1
        }
        return found.reversed()
    }

    /// Where the entry `id` is in `entries`.
    private func position(of id: RecordID) -> Int32? {
        let index = byIDIndex(of: id)
        guard index < byID.count, entries[Int(byID[index])].id == id else { return nil }
        return byID[index]
    }

    /// Where `id` goes in (or is in) `byID`: the first index whose entry's id is not below it.
    private func byIDIndex(of id: RecordID) -> Int {
        var (low, high) = (0, byID.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[Int(byID[middle])].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first index of `byTime` whose entry is at `unixMilliseconds` or later.
    private func firstByTime(atOrAfter unixMilliseconds: Int64) -> Int {
        var (low, high) = (0, byTime.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[Int(byTime[middle])].unixMilliseconds < unixMilliseconds {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// Where `entry` goes in (or is in) `byTime`: the first index whose entry sorts at or after it.
    private func byTimeIndex(of entry: WaterEntry) -> Int {
        let key = (entry.unixMilliseconds, entry.id)
        var (low, high) = (0, byTime.count)
        while low < high {
            let middle = (low + high) / 2
            let other = entries[Int(byTime[middle])]
            if (other.unixMilliseconds, other.id) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `count` days ending with `last`, oldest first.
    public func days(count: Int, endingOn last: LocalDate) -> [WaterDay] {
        (0..<count).reversed().map { day(last.adding(days: -$0)) }
    }

    /// Days with the goal met up to `date`, consecutive but for excused days (which neither
    /// count nor break). When `date` is today and not met yet, the streak runs up to
    /// yesterday: today is still open and breaks nothing.
    public func streak(endingOn date: LocalDate, today: LocalDate) -> Int {
        streakRuns.current(endingOn: date, today: today, mark: mark)
    }

    /// The longest streak there has ever been (the current one included).
    public var bestStreak: Int { streakRuns.best }

    /// The longest streak as it stood on `date`: a past week's board shows the best of then.
    public func bestStreak(through date: LocalDate, today: LocalDate) -> Int {
        streakRuns.best(through: date, today: today, mark: mark)
    }

    /// How `date` stands toward a streak.
    public func mark(_ date: LocalDate) -> StreakMark {
        Self.mark(date, days: days, excused: excused, goals: goals)
    }

    private static func mark(
        _ date: LocalDate, days: [LocalDate: DayTotal], excused: [LocalDate: String], goals: GoalHistory
    ) -> StreakMark {
        if excused[date] != nil { return .neutral }
        guard let total = days[date] else { return .breaks }
        return total.amountMillilitres >= goals.goalMillilitres(on: date) ? .counts : .breaks
    }

    /// The first day with a drink, for when a member joined.
    public var firstDay: LocalDate? { byTime.first.map { date(of: entries[Int($0)]) } ?? firstDayOfDroppedEntries }

    /// This diary without its drinks: the days' totals, goals, excuses, streaks and first day,
    /// all a board reads (``BoardMember``). A board's cache keeps it instead of the diary, so it
    /// holds no drink in memory (the drinks are most of an archive's).
    public var withoutEntries: WaterDiary {
        var summary = WaterDiary(timeZone: timeZone)
        summary.zones = zones
        summary.usualCupMillilitres = usualCupMillilitres
        summary.goals = goals
        summary.days = days
        summary.excused = excused
        summary.streakRuns = streakRuns
        summary.firstDayOfDroppedEntries = firstDay
        return summary
    }

    /// Every day that has entries, in date order.
    public var datesWithEntries: [LocalDate] { days.keys.sorted() }

    // MARK: Applying

    /// Applies a validated mutation. Mutations from a journal that no longer fit (an edit of
    /// an entry that is gone) are ignored rather than guessed at; ``isValid`` catches the rest.
    public mutating func apply(_ mutation: WaterMutation) {
        switch mutation {
        case .logged(let entry):
            // The hot path: one day, nothing allocated.
            let date = date(of: entry)
            let old = mark(date)
            change(mutation)
            remark(date, from: old)
        case .timeZoneSet:
            change(mutation)
            rebuildStreakRuns()
        default:
            // The days whose streak mark the mutation may change, before and after it.
            let touched = touchedDays(by: mutation)
            let before = touched.map(mark)
            change(mutation)
            for (date, old) in zip(touched, before) { remark(date, from: old) }
        }
    }

    /// Tells the streak runs of `date`'s new mark. The marks are read from copies of the
    /// tables (which share their storage): a closure over `self` would copy the runs it changes.
    private mutating func remark(_ date: LocalDate, from old: StreakMark) {
        let new = mark(date)
        guard new != old else { return }
        let (days, excused, goals) = (self.days, self.excused, self.goals)
        streakRuns.change(date, from: old, to: new) { Self.mark($0, days: days, excused: excused, goals: goals) }
    }

    private func touchedDays(by mutation: WaterMutation) -> [LocalDate] {
        switch mutation {
        case .logged(let entry): [date(of: entry)]
        case .edited(let entry):
            [self.entry(entry.id).map(date), date(of: entry)].compactMap { $0 }.reduce(into: []) { dates, date in
                if !dates.contains(date) { dates.append(date) }
            }
        case .deleted(let id): self.entry(id).map { [date(of: $0)] } ?? []
        // A goal changes its day and the later ones: only days with drinks can change mark.
        case .goalSet(_, let from): days.keys.filter { $0 >= from }
        case .excused(let date, _), .unexcused(let date): [date]
        case .usualCupSet, .usualDrinkSet, .cupSaved, .cupRemoved, .timeZoneSet: []
        }
    }

    private mutating func rebuildStreakRuns() {
        let dates = Set(days.keys).union(excused.keys)
        streakRuns = StreakRuns(marked: dates.map { ($0, mark($0)) })
    }

    private mutating func change(_ mutation: WaterMutation) {
        switch mutation {
        case .logged(let entry):
            let idSlot = byIDIndex(of: entry.id)
            guard idSlot == byID.count || entries[Int(byID[idSlot])].id != entry.id else { return }
            let position = Int32(entries.count)
            // New drinks are nearly always the latest, with the latest ids (clients make them
            // time-ordered): both insertions are at the end.
            let timeSlot = byTimeIndex(of: entry)
            entries.append(entry)
            byID.insert(position, at: idSlot)
            byTime.insert(position, at: timeSlot)
            add(entry)
        case .edited(let entry):
            guard let position = position(of: entry.id) else { return }
            remove(entries[Int(position)])
            byTime.remove(at: byTimeIndex(of: entries[Int(position)]))
            entries[Int(position)] = entry
            byTime.insert(position, at: byTimeIndex(of: entry))
            add(entry)
        case .deleted(let id):
            guard let position = position(of: id) else { return }
            remove(entries[Int(position)])
            byID.remove(at: byIDIndex(of: id))
            byTime.remove(at: byTimeIndex(of: entries[Int(position)]))
            entries.remove(at: Int(position))
            for index in byID.indices where byID[index] > position { byID[index] -= 1 }
            for index in byTime.indices where byTime[index] > position { byTime[index] -= 1 }
        case .goalSet(let goal, let from):
            goals.set(goal, from: from)
        case .usualCupSet(let cup):
            usualCupMillilitres = cup
        case .usualDrinkSet(let drink):
            usualDrink = drink
        case .cupSaved(let cup):
            cups.replaceOrAppend(cup, sameKey: \.name)
        case .cupRemoved(let name):
            cups.removeAll { $0.name == name }
        case .excused(let date, let reason):
            excused[date] = reason
        case .unexcused(let date):
            excused[date] = nil
        case .timeZoneSet(let zone, let moved):
            if let moved {
                zones.move(to: zone, atUnixMilliseconds: moved)
            } else {
                zones = ZoneHistory(zone)
            }
            days = [:]
            entriesByYear = [:]
            for entry in entries { add(entry) }
        }
    }

    /// Logs `new` in order, as `apply(.logged(...))` for each would, but builds the indexes by
    /// sorting once: what loading a snapshot of years of drinks does.
    public mutating func logAll(_ new: [WaterEntry]) {
        var order = Array(Int32(0)..<Int32(new.count))
        order.sort { new[Int($0)].id < new[Int($1)].id }
        let unique = zip(order, order.dropFirst()).allSatisfy { new[Int($0)].id != new[Int($1)].id }
        guard entries.isEmpty, unique else {
            // Not a fresh diary, or ids that repeat (which only a damaged file has): one at a time.
            for entry in new { apply(.logged(entry)) }
            return
        }
        entries = new
        byID = order
        byTime = Array(Int32(0)..<Int32(new.count))
        byTime.sort {
            (new[Int($0)].unixMilliseconds, new[Int($0)].id) < (new[Int($1)].unixMilliseconds, new[Int($1)].id)
        }
        for entry in new { add(entry) }
        rebuildStreakRuns()
    }

    private mutating func add(_ entry: WaterEntry) {
        let date = date(of: entry)
        days[date, default: DayTotal()].add(entry, sign: 1)
        entriesByYear[date.components.year, default: 0] += 1
    }

    private mutating func remove(_ entry: WaterEntry) {
        let date = date(of: entry)
        days[date]?.add(entry, sign: -1)
        if days[date]?.count == 0 { days[date] = nil }
        let year = date.components.year
        entriesByYear[year]? -= 1
        if entriesByYear[year] == 0 { entriesByYear[year] = nil }
    }

    /// Two diaries are equal when their settings, goals and entries are: the per-day index is
    /// derived from those, and its order depends on the history of edits.
    public static func == (lhs: WaterDiary, rhs: WaterDiary) -> Bool {
        lhs.usualCupMillilitres == rhs.usualCupMillilitres && lhs.usualDrink == rhs.usualDrink && lhs.cups == rhs.cups
            && lhs.zones == rhs.zones && lhs.goals == rhs.goals && lhs.entries == rhs.entries
            && lhs.excused == rhs.excused
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(usualCupMillilitres)
        hasher.combine(usualDrink)
        hasher.combine(cups)
        hasher.combine(zones)
        hasher.combine(goals)
        hasher.combine(entries)
        hasher.combine(excused)
    }

    /// The seed's load-time checks: goal and cup in range, amounts and factors in range, ids unique.
    public var isValid: Bool {
        WaterLimits.usualCupMillilitres.contains(usualCupMillilitres) && Drink.isValidName(usualDrink)
            && cups.allSatisfy {
                Drink.isValidName($0.name) && WaterLimits.amountMillilitres.contains($0.amountMillilitres)
                    && $0.drink.map(Drink.isValidName) ?? true
            }
            && GoalHistory(changes: goals.changes) != nil
            && entries.allSatisfy {
                WaterLimits.amountMillilitres.contains($0.amountMillilitres)
                    && HydrationFactor.allowedHundredths.contains($0.factorHundredths) && Drink.isValidName($0.drink)
            }
            && byID.count == entries.count && byTime.count == entries.count
            && zip(byID, byID.dropFirst()).allSatisfy { entries[Int($0)].id < entries[Int($1)].id }
    }
}
