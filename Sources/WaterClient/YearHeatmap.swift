import WaterCore

/// A year drawn as GitHub draws contributions: one column per ISO week, rows Monday to Sunday,
/// month labels above, a legend and the year's figures below, in at most 80 columns (4 for the
/// weekday names, 54 weeks at most). A pure value: `water-client year` gives it the days
/// GetYear answered and prints its lines.
public struct YearHeatmap: Sendable {
    /// How the cells are drawn: glyphs that read without colour (NO_COLOR, a pipe), or
    /// coloured blocks on a terminal.
    public enum Style: Hashable, Sendable {
        case glyphs
        case colour256
        case truecolor

        /// Truecolor where `COLORTERM` says so, else 256 colours; glyphs without colour.
        public static func chosen(colour: Bool, colorterm: String?) -> Style {
            guard colour else { return .glyphs }
            return colorterm == "truecolor" || colorterm == "24bit" ? .truecolor : .colour256
        }
    }

    /// The five levels of a day's capped progress.
    public enum Level: Int, CaseIterable, Hashable, Sendable {
        /// Nothing drunk (or the habit not checked).
        case none
        case under25
        case under50
        case under100
        /// The goal met (or the habit checked).
        case met

        /// The level of a day at `percent` of its goal (truncated); `met` decides the top one (a
        /// habit's checked day). `drankAny`: something was drunk, so under 1 % is not "nothing"
        /// (unknown, so false, where a percent member's millilitres are not sent).
        public static func of(percent: Int, drankAny: Bool, met: Bool) -> Level {
            if met { return .met }
            guard percent > 0 || drankAny else { return .none }
            return percent < 25 ? .under25 : percent < 50 ? .under50 : .under100
        }
    }

    /// What one cell shows.
    public enum Cell: Hashable, Sendable {
        case level(Level)
        case excused
        /// Before the member joined, or while they were removed.
        case notAMember
        /// After today.
        case future
        /// In the first or last week, but in the year before or after.
        case outside
    }

    /// One day of the year as GetYear answers it.
    public struct Day: Hashable, Sendable {
        public var date: LocalDate
        public var amountMillilitres: Int32
        public var goalMillilitres: Int32
        /// min(amount / goal, 1) x 100, truncated: what the server sent, which is all a percent
        /// member's day carries; worked out from the amount and goal when not given.
        public var percent: Int
        public var goalMet: Bool
        public var excused: Bool
        public var future: Bool
        /// Before the member joined, or while they were removed.
        public var notAMember = false

        public init(
            date: LocalDate, amountMillilitres: Int32 = 0, goalMillilitres: Int32 = 0, percent: Int? = nil,
            goalMet: Bool = false, excused: Bool = false, future: Bool = false, notAMember: Bool = false
        ) {
            self.notAMember = notAMember
            self.date = date
            self.amountMillilitres = amountMillilitres
            self.goalMillilitres = goalMillilitres
            self.percent =
                percent ?? (goalMillilitres > 0 ? min(Int(amountMillilitres) * 100 / Int(goalMillilitres), 100) : 0)
            self.goalMet = goalMet
            self.excused = excused
            self.future = future
        }
    }

    public let year: CalendarYear
    /// For a habit: "checked" instead of "goal met", and no litres.
    public let habit: Bool
    /// Another member's year whose millilitres are private (privacy percent): the days are
    /// drawn from their percents, and no litres are summed.
    public let amountsHidden: Bool
    private let days: [LocalDate: Day]

    public init(year: CalendarYear, days: [Day], habit: Bool = false, amountsHidden: Bool = false) {
        self.year = year
        self.habit = habit
        self.amountsHidden = amountsHidden
        self.days = Dictionary(days.map { ($0.date, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// The cell of `date`; a day of the year that was not given is one with nothing on it.
    public func cell(_ date: LocalDate) -> Cell {
        guard date >= year.january1, date <= year.december31 else { return .outside }
        guard let day = days[date] else { return .level(.none) }
        if day.future { return .future }
        if day.notAMember { return .notAMember }
        if day.excused { return .excused }
        return .level(.of(percent: day.percent, drankAny: day.amountMillilitres > 0, met: day.goalMet))
    }

    /// Days met (or checked) in the year, excused days not among them.
    public var daysMet: Int {
        year.days.filter { cell($0) == .level(.met) }.count
    }

    /// The year's longest run of met days; excused days neither count nor break it.
    public var bestStreak: Int {
        StreakRuns(
            marked: year.days.map { date in
                switch cell(date) {
                case .level(.met): (date, .counts)
                case .excused: (date, .neutral)
                default: (date, .breaks)
                }
            }
        ).best
    }

    /// What counted toward the goal over the year, in millilitres.
    public var totalMillilitres: Int {
        days.values.filter { !$0.future }.reduce(0) { $0 + Int($1.amountMillilitres) }
    }

    /// The month labels, the seven weekday rows, a blank line, the legend and the figures.
    public func lines(style: Style) -> [String] {
        let weeks = year.weeks
        var lines = [Self.rowLabelPad + monthLabels(weeks)]
        for (row, name) in Self.weekdayNames.enumerated() {
            var line = name + " "
            for week in weeks { line += Self.draw(cell(week.monday.adding(days: row)), style: style) }
            lines.append(line)
        }
        lines.append("")
        lines.append(legend(style: style))
        let streak = "best streak \(bestStreak) \(bestStreak == 1 ? "day" : "days")"
        lines.append(
            habit
                ? "checked on \(daysMet) \(daysMet == 1 ? "day" : "days") · \(streak)"
                : "goal met on \(daysMet) \(daysMet == 1 ? "day" : "days") · \(streak) · "
                    + (amountsHidden
                        ? "millilitres private (privacy percent)" : "\(Self.litres(totalMillilitres)) in all"))
        return lines
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let rowLabelPad = "    "

    /// Each month's name above the column of the week its 1st is in (a name that would run
    /// into the one before is left out; none is, with weeks of at least 4 columns a month).
    func monthLabels(_ weeks: [ISOWeek]) -> String {
        var text: [Character] = []
        for (index, name) in Self.monthNames.enumerated() {
            let first = LocalDate(year: year.year, month: index + 1, day: 1)!
            guard let column = weeks.firstIndex(where: { $0.contains(first) }),
                column >= (text.isEmpty ? 0 : text.count + 1)
            else { continue }
            text += Array(repeating: " ", count: column - text.count) + Array(name)
        }
        return String(text)
    }

    /// The legend: each level's glyph, excused and the days to come.
    func legend(style: Style) -> String {
        let names =
            habit
            ? [Level.none: "no", .met: "checked"]
            : [.none: "0", .under25: "<25 %", .under50: "<50 %", .under100: "<100 %", .met: "met"]
        let levels = Level.allCases.filter { names[$0] != nil }
        return
            (levels.map { Self.draw(.level($0), style: style) + " " + names[$0]! }
            + [
                "\(Self.draw(.excused, style: style)) excused", "\(Self.draw(.notAMember, style: style)) not a member",
                "\(Self.draw(.future, style: style)) to come",
            ])
            .joined(separator: "  ")
    }

    /// 612400 ml as "612.4 l".
    static func litres(_ millilitres: Int) -> String {
        let tenths = (millilitres + 50) / 100
        return "\(tenths / 10).\(tenths % 10) l"
    }

    /// One cell, one column wide.
    public static func draw(_ cell: Cell, style: Style) -> String {
        switch style {
        case .glyphs:
            switch cell {
            case .level(.none): return "·"
            case .level(.under25): return "░"
            case .level(.under50): return "▒"
            case .level(.under100): return "▓"
            case .level(.met): return "█"
            case .excused: return "x"
            case .notAMember: return "-"
            case .future: return " "
            case .outside: return " "
            }
        case .colour256, .truecolor:
            let glyph: String
            switch cell {
            case .outside: return " "
            case .future: glyph = "·"
            case .excused: glyph = "x"
            case .notAMember: glyph = "-"
            case .level: glyph = "█"
            }
            let (code, rgb) = colour(cell)
            let start =
                style == .truecolor ? "\u{1B}[38;2;\(rgb.0);\(rgb.1);\(rgb.2)m" : "\u{1B}[38;5;\(code)m"
            return start + glyph + "\u{1B}[0m"
        }
    }

    /// A cell's colour: the 256-colour palette's number and the truecolor red, green, blue
    /// (greys for nothing and to come, blues up to the goal, violet for excused).
    static func colour(_ cell: Cell) -> (Int, (Int, Int, Int)) {
        switch cell {
        case .level(.none): (237, (58, 58, 58))
        case .level(.under25): (24, (16, 72, 120))
        case .level(.under50): (31, (20, 112, 175))
        case .level(.under100): (38, (30, 158, 222))
        case .level(.met): (45, (64, 214, 255))
        case .excused: (140, (175, 135, 215))
        case .future, .outside, .notAMember: (240, (88, 88, 88))
        }
    }
}
