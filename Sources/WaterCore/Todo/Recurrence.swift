/// How a chore comes back: its occurrences are a grid counted from its due day, so a Monday
/// chore stays a Monday chore however late it is done.
public enum Recurrence: Hashable, Sendable, CustomStringConvertible {
    case days(Int)
    case weeks(Int)
    /// Every `count` months on `dayOfMonth`, or the month's last day when it is shorter: a chore
    /// due on the 31st is due on 28 February and on 31 March again.
    case months(Int, dayOfMonth: Int)
    /// On these ISO weekdays (1 Monday ... 7 Sunday).
    case weekdays(Set<Int>)

    /// The most `N` each unit takes: a year.
    public static let maximumDays = 365
    public static let maximumWeeks = 52
    public static let maximumMonths = 12

    static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Reads `day`, `N days`, `week`, `N weeks`, `month`, `N months` or weekdays (`mon,thu`) for
    /// a chore due on `due` (a monthly chore keeps its day of the month).
    public static func parse(_ text: String, due: LocalDate) throws(DomainError) -> Recurrence {
        let words = text.lowercased().split(separator: " ").map(String.init)
        let (count, unit): (Int?, String) =
            switch words.count {
            case 1: (1, words[0])
            case 2: (Int(words[0]), words[1])
            default: (nil, "")
            }
        if words.count == 1, words[0].contains(",") || weekdayNames.contains(words[0]) {
            let days = words[0].split(separator: ",", omittingEmptySubsequences: false).map {
                weekdayNames.firstIndex(of: String($0)).map { $0 + 1 }
            }
            guard days.allSatisfy({ $0 != nil }), Set(days).count == days.count else {
                throw .invalid("every", "weekdays are written mon,tue,wed,thu,fri,sat,sun, each once, got \(text)")
            }
            return .weekdays(Set(days.compactMap { $0 }))
        }
        guard let count, count >= 1 else { throw unreadable(text) }
        let plural = words.count == 2 && count != 1
        func checked(_ limit: Int, _ name: String) throws(DomainError) -> Int {
            guard count <= limit else {
                throw .invalid("every", "a chore comes back every 1 to \(limit) \(name)s, got \(count)")
            }
            return count
        }
        switch unit {
        case plural ? "days" : "day": return .days(try checked(maximumDays, "day"))
        case plural ? "weeks" : "week": return .weeks(try checked(maximumWeeks, "week"))
        case plural ? "months" : "month":
            return .months(try checked(maximumMonths, "month"), dayOfMonth: due.components.day)
        default: throw unreadable(text)
        }
    }

    private static func unreadable(_ text: String) -> DomainError {
        .invalid(
            "every",
            "every is day, N days, week, N weeks, month, N months or weekdays like mon,thu; got \(text)")
    }

    /// The first occurrence after `due` that is on or after `day` (the day it was done or
    /// skipped): done late, the next one is still on the grid; done early, the one after `due`.
    public func next(after due: LocalDate, notBefore day: LocalDate) -> LocalDate {
        let earliest = max(due.adding(days: 1), day)
        switch self {
        case .days(let count), .weeks(let count):
            let step = if case .weeks = self { count * 7 } else { count }
            let steps = max(1, (due.days(to: earliest) + step - 1) / step)
            return due.adding(days: steps * step)
        case .months(let count, let dayOfMonth):
            let (year, month, _) = due.components
            var index = year * 12 + (month - 1)
            while true {
                index += count
                let candidate = Self.day(dayOfMonth, year: index / 12, month: index % 12 + 1)
                if candidate >= earliest { return candidate }
            }
        case .weekdays(let days):
            var candidate = earliest
            while !days.contains(candidate.isoWeekday) { candidate = candidate.adding(days: 1) }
            return candidate
        }
    }

    /// The first occurrence on or after `day` for a chore added with no due day.
    public func first(onOrAfter day: LocalDate) -> LocalDate {
        guard case .weekdays(let days) = self else { return day }
        var candidate = day
        while !days.contains(candidate.isoWeekday) { candidate = candidate.adding(days: 1) }
        return candidate
    }

    /// `dayOfMonth` of that month, or its last day.
    static func day(_ dayOfMonth: Int, year: Int, month: Int) -> LocalDate {
        LocalDate(year: year, month: month, day: min(dayOfMonth, LocalDate.daysInMonth(year: year, month: month)))!
    }

    /// As ``parse(_:due:)`` reads it.
    public var description: String {
        switch self {
        case .days(let count): count == 1 ? "day" : "\(count) days"
        case .weeks(let count): count == 1 ? "week" : "\(count) weeks"
        case .months(let count, _): count == 1 ? "month" : "\(count) months"
        case .weekdays(let days): days.sorted().map { Self.weekdayNames[$0 - 1] }.joined(separator: ",")
        }
    }
}
