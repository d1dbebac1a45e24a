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

    @Test("the best streak: the longest run of met days, excused days neither counting nor breaking it")
    func bestStreak() {
        #expect(StreakDay.bestStreak([]) == 0)
        #expect(StreakDay.bestStreak([.missed, .missed]) == 0)
        #expect(StreakDay.bestStreak([.excused, .excused]) == 0)
        #expect(StreakDay.bestStreak([.met]) == 1)
        #expect(StreakDay.bestStreak([.met, .met, .missed, .met]) == 2)
        #expect(StreakDay.bestStreak([.met, .excused, .met]) == 2)
        #expect(StreakDay.bestStreak([.met, .excused, .missed, .met]) == 1)
        #expect(StreakDay.bestStreak([.met, .met, .excused, .excused, .met, .missed, .met, .met]) == 3)
        #expect(StreakDay.bestStreak([.missed, .met, .met, .met, .met, .missed, .met, .excused, .met, .met]) == 4)
    }
}
