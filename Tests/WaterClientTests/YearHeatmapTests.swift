import Testing
import WaterClient
import WaterCore

/// 2026 as GetYear would answer it on Tuesday 2026-03-10, goal 2000 ml: Thursday January 1st
/// met, Friday 75 %, Saturday 30 %, Sunday 5 %, Monday the 5th met, Tuesday excused, Wednesday
/// and Thursday met, nothing else.
private func sample(habit: Bool = false) throws -> YearHeatmap {
    let year = try #require(CalendarYear(2026))
    let today = try #require(LocalDate("2026-03-10"))
    let amounts = [
        "2026-01-01": 2000, "2026-01-02": 1500, "2026-01-03": 600, "2026-01-04": 100, "2026-01-05": 2000,
        "2026-01-07": 2000, "2026-01-08": 2400,
    ]
    let days = year.days.map { date in
        let amount = Int32(amounts[date.description] ?? 0)
        return YearHeatmap.Day(
            date: date, amountMillilitres: amount, goalMillilitres: 2000, goalMet: amount >= 2000,
            excused: date.description == "2026-01-06", future: date > today)
    }
    return YearHeatmap(year: year, days: days, habit: habit)
}

@Suite("YearHeatmap")
struct YearHeatmapTests {
    @Test("five levels of a day's capped progress: 0, under 25, under 50, under 100 %, met")
    func levels() {
        let level = { (amount: Int32, met: Bool) in
            YearHeatmap.Level.of(
                percent: YearHeatmap.Day(
                    date: LocalDate("2026-01-01")!, amountMillilitres: amount, goalMillilitres: 2000
                )
                .percent, drankAny: amount > 0, met: met)
        }
        #expect(level(0, false) == .none)
        #expect(level(1, false) == .under25)
        #expect(level(499, false) == .under25)
        #expect(level(500, false) == .under50)
        #expect(level(999, false) == .under50)
        #expect(level(1000, false) == .under100)
        #expect(level(1999, false) == .under100)
        #expect(level(2000, true) == .met)
        #expect(level(0, true) == .met)  // a habit's checked day
    }

    @Test("colour on a terminal, truecolor where COLORTERM says so, glyphs without colour")
    func styles() {
        #expect(YearHeatmap.Style.chosen(colour: false, colorterm: "truecolor") == .glyphs)
        #expect(YearHeatmap.Style.chosen(colour: true, colorterm: nil) == .colour256)
        #expect(YearHeatmap.Style.chosen(colour: true, colorterm: "truecolor") == .truecolor)
        #expect(YearHeatmap.Style.chosen(colour: true, colorterm: "24bit") == .truecolor)
        #expect(YearHeatmap.Style.chosen(colour: true, colorterm: "yes") == .colour256)
    }

    @Test("the cells: each known day's glyph in its week's column and weekday's row, future and excused apart")
    func glyphs() throws {
        let lines = try sample().lines(style: .glyphs)
        #expect(lines.count == 11)
        // Columns start at 4; column 0 is the week of Monday 2025-12-29, column 10 that of
        // Monday 2026-03-09 (today is its Tuesday), and 53 columns in all.
        #expect(lines[1] == "Mon  █" + String(repeating: "·", count: 9) + String(repeating: " ", count: 42))
        #expect(lines[2] == "Tue  x" + String(repeating: "·", count: 9) + String(repeating: " ", count: 42))
        #expect(lines[3] == "Wed  █" + String(repeating: "·", count: 8) + String(repeating: " ", count: 43))
        #expect(lines[4] == "Thu ██" + String(repeating: "·", count: 8) + String(repeating: " ", count: 43))
        #expect(lines[5].hasPrefix("Fri ▓··"))
        #expect(lines[6].hasPrefix("Sat ▒··"))
        #expect(lines[7].hasPrefix("Sun ░··"))
        for line in lines { #expect(line.count <= 80, "\(line)") }
        #expect(lines[1...7].allSatisfy { $0.count == 4 + 53 })
        #expect(lines[8] == "")
        #expect(lines[9] == "· 0  ░ <25 %  ▒ <50 %  ▓ <100 %  █ met  x excused  - not a member    to come")
        #expect(lines[10] == "goal met on 4 days · best streak 3 days · 10.6 l in all")
    }

    @Test("month labels above the week of each month's 1st")
    func monthLabels() throws {
        let labels = try sample().lines(style: .glyphs)[0]
        // Jan 1st in column 0, Feb 1st (a Sunday) in 4, Mar 1st in 8, Apr 1st in 13, Jun 1st (a Monday) in 22,
        // Dec 1st in 48.
        #expect(labels.hasPrefix("    Jan Feb Mar  Apr"))
        let columns = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map {
            labels.range(of: $0).map { labels.distance(from: labels.startIndex, to: $0.lowerBound) - 4 }
        }
        #expect(columns == [0, 4, 8, 13, 17, 22, 26, 30, 35, 39, 43, 48])
    }

    @Test("the figures: days met, the best streak across an excused day, and the litres")
    func figures() throws {
        let heatmap = try sample()
        #expect(heatmap.daysMet == 4)
        #expect(heatmap.bestStreak == 3)  // the 5th, (the excused 6th), the 7th and the 8th
        #expect(heatmap.totalMillilitres == 10_600)
        #expect(heatmap.cell(try #require(LocalDate("2026-01-06"))) == .excused)
        #expect(heatmap.cell(try #require(LocalDate("2026-03-11"))) == .future)
        #expect(heatmap.cell(try #require(LocalDate("2026-03-10"))) == .level(.none))
        #expect(heatmap.cell(try #require(LocalDate("2025-12-31"))) == .outside)
    }

    @Test("colours: 256 colours or truecolor, each level, excused and future its own")
    func colours() throws {
        let lines = try sample().lines(style: .colour256)
        #expect(lines[4].hasPrefix("Thu \u{1B}[38;5;45m█\u{1B}[0m\u{1B}[38;5;45m█\u{1B}[0m\u{1B}[38;5;237m█\u{1B}[0m"))
        #expect(lines[2].hasPrefix("Tue  \u{1B}[38;5;140mx\u{1B}[0m"))
        #expect(lines[3].hasSuffix("\u{1B}[38;5;240m·\u{1B}[0m"))
        let truecolor = try sample().lines(style: .truecolor)
        #expect(truecolor[5].hasPrefix("Fri \u{1B}[38;2;30;158;222m█\u{1B}[0m"))
        let codes = [
            YearHeatmap.Cell.level(.none), .level(.under25), .level(.under50), .level(.under100), .level(.met),
            .excused, .future,
        ].map { YearHeatmap.draw($0, style: .colour256) }
        #expect(Set(codes).count == codes.count)
    }

    @Test("a habit: checked days as met, its own legend and figures without litres")
    func habit() throws {
        let lines = try sample(habit: true).lines(style: .glyphs)
        #expect(lines[9] == "· no  █ checked  x excused  - not a member    to come")
        #expect(lines[10] == "checked on 4 days · best streak 3 days")
    }

    @Test("issue 32: a percent member's year is drawn from the percents sent, and says its millilitres are private")
    func percentMemberYear() throws {
        let year = try #require(CalendarYear(2026))
        let today = try #require(LocalDate("2026-01-04"))
        // What GetYear sends of a percent member: no amount, no goal, the truncated percent.
        let percents = ["2026-01-01": 100, "2026-01-02": 60, "2026-01-03": 30, "2026-01-04": 10]
        let days = year.days.map { date in
            YearHeatmap.Day(
                date: date, percent: percents[date.description] ?? 0, goalMet: percents[date.description] == 100,
                future: date > today)
        }
        let heatmap = YearHeatmap(year: year, days: days, amountsHidden: true)
        #expect(heatmap.cell(LocalDate("2026-01-02")!) == .level(.under100))
        #expect(heatmap.cell(LocalDate("2026-01-03")!) == .level(.under50))
        #expect(heatmap.cell(LocalDate("2026-01-04")!) == .level(.under25))
        let figures = try #require(heatmap.lines(style: .glyphs).last)
        #expect(figures == "goal met on 1 day · best streak 1 day · millilitres private (privacy percent)")
        #expect(!figures.contains("in all"))
    }
}
