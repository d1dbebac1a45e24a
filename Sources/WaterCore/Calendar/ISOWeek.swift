/// An ISO 8601 week: Monday to Sunday, numbered within its week-based year (`2026-W49`).
/// The household's board and the habits' check lists are kept per week.
public struct ISOWeek: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The week's Monday.
    public let monday: LocalDate

    /// The week that contains `date`.
    public init(containing date: LocalDate) {
        self.monday = date.adding(days: 1 - date.isoWeekday)
    }

    /// Parses `YYYY-Www` (week 01 to 52 or 53).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 3, parts[1].first == "W",
            let year = Int(parts[0]), let number = Int(parts[1].dropFirst()), number >= 1
        else { return nil }
        // Week 1 is the week with the year's first Thursday, so it contains January 4th.
        let week1 = ISOWeek(containing: LocalDate(year: year, month: 1, day: 4)!)
        let week = ISOWeek(monday: week1.monday.adding(days: 7 * (number - 1)))
        guard week.year == year else { return nil }
        self = week
    }

    private init(monday: LocalDate) {
        self.monday = monday
    }

    /// The week-based year: the year of the week's Thursday.
    public var year: Int { monday.adding(days: 3).components.year }

    /// 1 to 53.
    public var number: Int {
        let thursday = monday.adding(days: 3)
        let january1 = LocalDate(year: thursday.components.year, month: 1, day: 1)!
        return january1.days(to: thursday) / 7 + 1
    }

    /// Monday to Sunday.
    public var days: [LocalDate] { (0..<7).map { monday.adding(days: $0) } }

    public var sunday: LocalDate { monday.adding(days: 6) }

    public var previous: ISOWeek { ISOWeek(monday: monday.adding(days: -7)) }

    public func contains(_ date: LocalDate) -> Bool {
        date >= monday && date <= sunday
    }

    public static func < (lhs: ISOWeek, rhs: ISOWeek) -> Bool { lhs.monday < rhs.monday }

    /// `YYYY-Www`.
    public var description: String {
        "\(year)-W\(number < 10 ? "0" : "")\(number)"
    }
}
