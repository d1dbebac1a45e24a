import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `year [YYYY] [--habit NAME] [--for NAME]`: a year at a glance, as a heatmap.
enum YearCommand: ClientCommand {
    static let spec = CommandSpec(
        "year", "[YYYY]", summary: "a year at a glance: a heatmap of your days",
        details: """
            Draws a year (default: this one) as a heatmap: a column per ISO week, rows Monday to
            Sunday, each day by how near it came to the goal (nothing, under 25 %, under 50 %,
            under 100 %, goal met), excused days and the days to come apart, then the days met,
            the best streak and the litres. Colour on a terminal (truecolor where COLORTERM says
            so); with NO_COLOR or in a pipe, the glyphs · ░ ▒ ▓ █, x for excused. --json gives the
            days.
            """,
        options: [
            OptionSpec("habit", "NAME", "the habit's checked days instead of water"),
            OptionSpec("for", "NAME", "another member of the household (their username)"),
        ],
        examples: ["year", "year 2025", "year --habit read", "year --for ben"])

    static func run(_ invocation: inout Invocation) throws {
        let habit = try invocation.arguments.option("habit")
        let member = try invocation.arguments.option("for")
        let yearText = invocation.arguments.positional()
        try invocation.arguments.finish()
        var year: UInt32 = 0
        if let yearText {
            guard yearText.count == 4, let number = Int(yearText), let checked = CalendarYear(number) else {
                throw UsageError(
                    "a year is four digits from \(CalendarYear.supported.lowerBound) to "
                        + "\(CalendarYear.supported.upperBound), like 2026, got \"\(yearText.terminalSafe)\"")
            }
            year = UInt32(checked.year)
        }
        let client = try invocation.client()
        let response = try client.call(
            WaterV1.GetYearRequest(year: year, habit: habit ?? "", forMember: member ?? ""))
        invocation.output(response) {
            let colorterm = getenv("COLORTERM").map { String(cString: $0) }
            return render(response, style: .chosen(colour: Terminal.usesColour, colorterm: colorterm))
        }
    }

    /// The heading, the heatmap and its figures; peers' names made terminal-safe.
    static func render(_ response: WaterV1.GetYearResponse, style: YearHeatmap.Style) -> String {
        guard let year = CalendarYear(Int(response.year)) else { return "no year in the server's reply" }
        let days = response.days.compactMap { day in
            LocalDate(day.date).map {
                YearHeatmap.Day(
                    date: $0, amountMillilitres: day.amountMl, goalMillilitres: day.goalMl, percent: Int(day.percent),
                    goalMet: day.goalMet, excused: day.excused, future: day.future, notAMember: day.notAMember)
            }
        }
        let heatmap = YearHeatmap(
            year: year, days: days, habit: !response.habit.isEmpty, amountsHidden: response.amountsHidden)
        // In 80 columns, whatever the names: a display name or a habit's is up to 64 characters.
        let what = response.habit.isEmpty ? "water" : "habit \(Format.cut(response.habit.terminalSafe, 30))"
        let heading = Format.bold("\(year.year)") + " · \(Format.cut(response.displayName.terminalSafe, 30)) · \(what)"
        return ([heading] + heatmap.lines(style: style)).joined(separator: "\n")
    }
}
