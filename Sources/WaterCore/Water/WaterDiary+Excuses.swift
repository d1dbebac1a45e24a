/// Excused days: a member who is sick or travelling keeps their board fair and their streak.
extension WaterDiary {
    /// At most this many excused days in any ``excuseWindowDays`` days, so the board stays a game.
    public static let maximumExcusedDays = 14
    public static let excuseWindowDays = 28
    /// How far back and ahead a day may be excused: a trip is planned, a sick week remembered.
    public static let excuseDaysBack = 366
    public static let excuseDaysAhead = 28
    /// A reason: "sick", "travel" or the member's own words, shared with the household.
    public static let excuseReason = SharedText(
        subject: "a reason", field: "reason", characters: 1...40, bytes: 160)

    /// Excuses `dates` for `reason` (empty: none given). A day already excused keeps its
    /// reason unless another one is given (excusing it again without one writes nothing), and
    /// one already excused for the same reason needs nothing written, so a replay changes nothing.
    /// - Throws: INVALID_ARGUMENT for a day out of range, a reason that breaks the shared text
    ///   rule, or a 15th excused day in some 28.
    /// - Parameter checkRange: false for an import, whose history may hold days of years ago
    ///   (from ``earliestDate`` on).
    public func validateExcuse(_ dates: [LocalDate], reason: String, today: LocalDate, checkRange: Bool = true)
        throws(DomainError) -> [WaterMutation]
    {
        let reason = reason.isEmpty ? "" : try Self.excuseReason.checked(reason)
        guard !dates.isEmpty else { throw .invalid("days", "name at least one day to excuse") }
        guard dates.count <= Self.maximumExcusedDays || !checkRange else {
            throw .invalid(
                "days",
                "at most \(Self.maximumExcusedDays) days can be excused in any \(Self.excuseWindowDays), "
                    + "got \(dates.count) at once")
        }
        if checkRange {
            for date in dates { try Self.checkExcuseRange(date, today: today) }
        } else {
            // An import's days: any of years ago, but none before 2000 nor further ahead than a
            // live excuse, so that 14 in 28 bounds them by the days since 2000.
            for date in dates {
                guard date >= Self.earliestDate, today.days(to: date) <= Self.excuseDaysAhead else {
                    throw .invalid(
                        "days",
                        "\(date) is out of range: a day from 2000-01-01 to \(Self.excuseDaysAhead) days ahead can be "
                            + "excused")
                }
            }
        }
        let new = Set(dates).filter { excused[$0] == nil }
        try checkExcuseLimit(adding: new)
        return Set(dates).sorted().filter { date in
            guard let kept = excused[date] else { return true }
            return !reason.isEmpty && kept != reason
        }.map { .excused($0, reason: reason) }
    }

    /// Takes the excuse of `dates` back; a day that is not excused needs nothing written.
    public func validateUnexcuse(_ dates: [LocalDate], today: LocalDate) throws(DomainError) -> [WaterMutation] {
        guard !dates.isEmpty else { throw .invalid("days", "name at least one day to unexcuse") }
        for date in dates { try Self.checkExcuseRange(date, today: today) }
        return Set(dates).sorted().filter { excused[$0] != nil }.map { .unexcused($0) }
    }

    private static func checkExcuseRange(_ date: LocalDate, today: LocalDate) throws(DomainError) {
        let offset = today.days(to: date)
        guard offset <= excuseDaysAhead else {
            throw .invalid(
                "days", "\(date) is more than \(excuseDaysAhead) days ahead; excuse it when it is nearer")
        }
        guard offset >= -excuseDaysBack else {
            throw .invalid("days", "\(date) is more than \(excuseDaysBack) days ago; only the last year can be excused")
        }
    }

    /// No window of 28 days may hold more than 14 excused days once `new` are.
    private func checkExcuseLimit(adding new: Set<LocalDate>) throws(DomainError) {
        guard let first = new.min(), let last = new.max() else { return }
        let window = Self.excuseWindowDays
        // Only windows that hold a new day can go over: scan the days they cover once.
        let from = first.adding(days: -(window - 1))
        let span = from.days(to: last) + window
        let isExcused = (0..<span).map { offset in
            let date = from.adding(days: offset)
            return new.contains(date) || excused[date] != nil
        }
        var count = isExcused.prefix(window).filter { $0 }.count
        var start = 0
        while true {
            if count > Self.maximumExcusedDays {
                let end = from.adding(days: start + window - 1)
                throw .invalid(
                    "days",
                    "at most \(Self.maximumExcusedDays) days can be excused in any \(window); "
                        + "\(from.adding(days: start)) to \(end) would have \(count)")
            }
            guard start + window < span else { break }
            count += (isExcused[start + window] ? 1 : 0) - (isExcused[start] ? 1 : 0)
            start += 1
        }
    }
}
