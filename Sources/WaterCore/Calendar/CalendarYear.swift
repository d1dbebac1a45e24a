/// A calendar year, January 1st to December 31st: what `water-client year` draws, one day
/// summary a day (366 at most, so the work of a year is bounded).
public struct CalendarYear: Hashable, Sendable {
    /// The years a diary can hold: nothing before 2000 is a real drink (see
    /// ``WaterDiary/earliestUnixMilliseconds``), and four digits is what a date has.
    public static let supported = 2000...9999

    public let year: Int

    /// Nil outside ``supported``.
    public init?(_ year: Int) {
        guard Self.supported.contains(year) else { return nil }
        self.year = year
    }

    public var january1: LocalDate { LocalDate(year: year, month: 1, day: 1)! }
    public var december31: LocalDate { LocalDate(year: year, month: 12, day: 31)! }

    /// Every day of the year, oldest first: 365 or 366.
    public var days: [LocalDate] {
        let first = january1
        return (0...first.days(to: december31)).map { first.adding(days: $0) }
    }

    /// The ISO weeks that hold a day of the year, oldest first: 53 or 54 (the first and the
    /// last may be partly in the years around it).
    public var weeks: [ISOWeek] {
        let first = ISOWeek(containing: january1)
        let count = first.monday.days(to: ISOWeek(containing: december31).monday) / 7 + 1
        return (0..<count).map { ISOWeek(containing: first.monday.adding(days: 7 * $0)) }
    }
}
