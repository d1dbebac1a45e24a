import Testing
import WaterCore

@Suite("CalendarYear and the best streak")
struct CalendarYearTests {
    @Test("a year is 2000 to 9999, January 1st to December 31st")
    func bounds() throws {
        #expect(CalendarYear(1899) == nil)
        #expect(CalendarYear(1999) == nil)
        #expect(CalendarYear(10_000) == nil)
        let leap = try #require(CalendarYear(2024))
        #expect(leap.days.count == 366)
        #expect(leap.days.first?.description == "2024-01-01" && leap.days.last?.description == "2024-12-31")
        #expect(try #require(CalendarYear(2026)).days.count == 365)
        #expect(try #require(CalendarYear(2000)).days.count == 366)
    }

    @Test("a year's ISO weeks: 2026 from Monday 2025-12-29, 53 of them; 2012 takes 54")
    func weeks() throws {
        let weeks = try #require(CalendarYear(2026)).weeks
        #expect(weeks.count == 53)
        #expect(weeks.first?.monday.description == "2025-12-29")
        #expect(weeks.last?.monday.description == "2026-12-28")
        // 2012 begins on a Sunday and ends on a Monday: a column for each of them.
        let long = try #require(CalendarYear(2012)).weeks
        #expect(long.count == 54)
        #expect(long.first?.monday.description == "2011-12-26" && long.last?.monday.description == "2012-12-31")
        // 2024 begins on a Monday and ends on a Tuesday.
        #expect(try #require(CalendarYear(2024)).weeks.count == 53)
    }

    @Test(
        "the best streak of a run of days (the year's): the longest run of met days, excused days neither counting nor breaking it"
    )
    func bestStreak() throws {
        let first = try #require(LocalDate("2026-01-01"))
        func best(_ marks: [StreakMark]) -> Int {
            StreakRuns(marked: marks.enumerated().map { (first.adding(days: $0.offset), $0.element) }).best
        }
        #expect(best([]) == 0)
        #expect(best([.breaks, .breaks]) == 0)
        #expect(best([.neutral, .neutral]) == 0)
        #expect(best([.counts]) == 1)
        #expect(best([.counts, .counts, .breaks, .counts]) == 2)
        #expect(best([.counts, .neutral, .counts]) == 2)
        #expect(best([.counts, .neutral, .breaks, .counts]) == 1)
        #expect(best([.counts, .counts, .neutral, .neutral, .counts, .breaks, .counts, .counts]) == 3)
        #expect(best([.breaks, .counts, .counts, .counts, .counts, .breaks, .counts, .neutral, .counts, .counts]) == 4)
    }
}
