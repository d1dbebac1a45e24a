/// The caps on how many drinks a member keeps (``WaterLimits/maximumEntriesPerDay``, per year,
/// in all). Every write that adds a drink to a day, a year or the diary is checked; what is
/// already stored is never refused or dropped for them.
extension WaterDiary {
    /// Refuses new drinks on `adding` (one date per drink; a drink moved to another day: its
    /// new date in `adding`, its old one in `removing`) when a day, a calendar year or the
    /// diary would hold more than its cap. Only what grows is checked: a day an older server
    /// left over the cap still takes edits and deletions.
    /// - Parameter field: the request field that put the drinks on their days, if any
    ///   (`at_unix_ms`); the cap in all is named by none.
    /// - Throws: `.full` (FAILED_PRECONDITION), naming the cap, the day or year, and how many
    ///   drinks it has and would have.
    public func checkRoom(adding: [LocalDate], removing: [LocalDate] = [], field: String? = nil)
        throws(DomainError)
    {
        guard !adding.isEmpty else { return }
        var byDay: [LocalDate: Int] = [:]
        for date in adding { byDay[date, default: 0] += 1 }
        for date in removing { byDay[date, default: 0] -= 1 }
        var byYear: [Int: Int] = [:]
        for (date, new) in byDay.sorted(by: { $0.key < $1.key }) where new != 0 {
            byYear[date.components.year, default: 0] += new
            guard new > 0 else { continue }
            let has = day(date).count
            if has + new > WaterLimits.maximumEntriesPerDay {
                throw Self.over(
                    "at most \(WaterLimits.maximumEntriesPerDay) drinks a day", "\(date)", has: has, new: new,
                    field: field)
            }
        }
        for (year, new) in byYear.sorted(by: { $0.key < $1.key }) where new > 0 {
            let has = entryCount(inYear: year)
            if has + new > WaterLimits.maximumEntriesPerYear {
                throw Self.over(
                    "at most \(WaterLimits.maximumEntriesPerYear) drinks a calendar year", "\(year)", has: has,
                    new: new, field: field)
            }
        }
        let new = adding.count - removing.count
        if new > 0, entries.count + new > WaterLimits.maximumEntries {
            throw Self.over(
                "at most \(WaterLimits.maximumEntries) drinks in all", "the diary", has: entries.count, new: new,
                field: nil)
        }
    }

    /// ``checkRoom(adding:removing:field:)`` for one drink on `date` (moved there from `from`,
    /// for an edit), as every log and edit asks: the same checks in the same order, with no
    /// collection made for them (they were five allocations on every durable log).
    public func checkRoom(forOne date: LocalDate, movedFrom from: LocalDate? = nil, field: String? = nil)
        throws(DomainError)
    {
        guard date != from else { return }
        let has = day(date).count
        if has + 1 > WaterLimits.maximumEntriesPerDay {
            throw Self.over(
                "at most \(WaterLimits.maximumEntriesPerDay) drinks a day", "\(date)", has: has, new: 1, field: field)
        }
        let year = date.components.year
        if from?.components.year != year {
            let inYear = entryCount(inYear: year)
            if inYear + 1 > WaterLimits.maximumEntriesPerYear {
                throw Self.over(
                    "at most \(WaterLimits.maximumEntriesPerYear) drinks a calendar year", "\(year)", has: inYear,
                    new: 1, field: field)
            }
        }
        if from == nil, entries.count + 1 > WaterLimits.maximumEntries {
            throw Self.over(
                "at most \(WaterLimits.maximumEntries) drinks in all", "the diary", has: entries.count, new: 1,
                field: nil)
        }
    }

    /// How many drinks the calendar year `year` of the member's time zone holds.
    public func entryCount(inYear year: Int) -> Int {
        Int(entriesByYear[year] ?? 0)
    }

    private static func over(_ cap: String, _ place: String, has: Int, new: Int, field: String?) -> DomainError {
        let state =
            new == 1
            ? "\(place) has \(has) already; remove one first"
            : has == 0 ? "\(place) would have \(new)" : "\(place) would have \(has + new) (\(has) there and \(new) new)"
        return DomainError(.full, field: field, "\(cap): \(state)")
    }

    /// What the diary holds over its caps, one line each (empty when nothing is): what a server
    /// before the caps stored, or a change of time zone moved over one. It all loads and is
    /// kept; only what would add to it is refused.
    public var overCaps: [String] {
        var lines: [String] = []
        let fullDays = datesWithEntries.map { ($0, day($0).count) }.filter { $0.1 > WaterLimits.maximumEntriesPerDay }
        if let most = fullDays.max(by: { $0.1 < $1.1 }) {
            lines.append(
                "\(fullDays.count) \(fullDays.count == 1 ? "day holds" : "days hold") more than "
                    + "\(WaterLimits.maximumEntriesPerDay) drinks (at most \(WaterLimits.maximumEntriesPerDay) "
                    + "drinks a day), the most \(most.1) on \(most.0)")
        }
        for (year, count) in entriesByYear.sorted(by: { $0.key < $1.key })
        where count > WaterLimits.maximumEntriesPerYear {
            lines.append(
                "\(year) holds \(count) drinks (at most \(WaterLimits.maximumEntriesPerYear) drinks a calendar year)")
        }
        if entries.count > WaterLimits.maximumEntries {
            lines.append("it holds \(entries.count) drinks (at most \(WaterLimits.maximumEntries) drinks in all)")
        }
        return lines
    }
}
