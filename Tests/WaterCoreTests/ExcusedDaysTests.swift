import Testing
import WaterCore

/// A diary with `amounts[i]` drunk at 09:00 UTC on the day `i - amounts.count + 1` days from
/// today (the last is today; 0 is nothing drunk), then the days at those offsets excused.
/// The drinks' ids count from 0 among those drunk.
private func diary(_ amounts: [Int32], excused: [Int] = []) throws -> WaterDiary {
    var water = try diary(
        amounts.enumerated().filter { $0.element > 0 }.map { index, amount in
            (amount, -3 * hour + Int64(index - amounts.count + 1) * day)
        })
    let today = water.today(atUnixMilliseconds: noon)
    for offset in excused {
        for mutation in try water.validateExcuse([today.adding(days: offset)], reason: "sick", today: today) {
            water.apply(mutation)
        }
    }
    return water
}

@Suite("Excused days and streaks")
struct ExcusedDaysTests {
    let today = MemberTimeZone.utc.date(atUnixMilliseconds: noon)

    @Test("an excused day neither counts for nor breaks a streak, and the best is kept")
    func excusedDaysBridge() throws {
        // Five met, one unmet, three met, one excused, two met (yesterday and today).
        var water = try diary([2000, 2000, 2000, 2000, 2000, 100, 2000, 2000, 2000, 0, 2000, 2000], excused: [-2])
        #expect(water.streak(endingOn: today, today: today) == 5)
        #expect(water.bestStreak == 5)
        #expect(water.day(today.adding(days: -2)).excuse == "sick")
        // Taking the excuse back breaks the streak again.
        water.apply(try water.validateUnexcuse([today.adding(days: -2)], today: today)[0])
        #expect(water.streak(endingOn: today, today: today) == 2)
        #expect(water.bestStreak == 5)
        #expect(!water.day(today.adding(days: -2)).isExcused)
        // Excusing the unmet day of the first run joins them: 5 + 3 = 8 is the best now.
        for mutation in try water.validateExcuse([today.adding(days: -6)], reason: "", today: today) {
            water.apply(mutation)
        }
        #expect(water.bestStreak == 8)
        #expect(water.streak(endingOn: today.adding(days: -3), today: today) == 8)
    }

    @Test("today counts once met, and an unmet today breaks nothing while it is open")
    func todayIsOpen() throws {
        var water = try diary([2000, 2000, 500])
        #expect(water.streak(endingOn: today, today: today) == 2)
        water.apply(
            try water.validateLog(id: id(99), amountMillilitres: 1500, unixMilliseconds: noon, now: noon).mutation)
        #expect(water.streak(endingOn: today, today: today) == 3)
        #expect(water.bestStreak == 3)
        // Removing the drink again splits nothing that was not there: back to 2, best 2.
        water.apply(try water.validateDelete(id: id(99)))
        #expect(water.streak(endingOn: today, today: today) == 2)
        #expect(water.bestStreak == 2)
    }

    @Test("a removed drink in the middle of a run splits it and recounts both sides")
    func splitRecounts() throws {
        var water = try diary([2000, 2000, 2000, 2000, 2000, 2000, 2000], excused: [-5])
        #expect(water.bestStreak == 6)
        water.apply(try water.validateDelete(id: id(3)))  // the fourth day
        #expect(water.bestStreak == 3)
        #expect(water.streak(endingOn: today, today: today) == 3)
        #expect(water.streak(endingOn: today.adding(days: -4), today: today) == 2)
    }

    @Test("the streak runs are the same whether built one change at a time or from the whole history")
    func incrementalMatchesRebuild() throws {
        var water = try diary([2000, 0, 2000, 2000, 100, 2000, 2000, 2000], excused: [-6, -3])
        let reloaded = { () -> WaterDiary in
            var copy = WaterDiary(timeZone: .utc)
            for (date, reason) in water.excused { copy.apply(.excused(date, reason: reason)) }
            copy.logAll(water.entries)
            return copy
        }
        // Excused -6 and -3 bridge the gaps: one run of 6 counted days.
        #expect(reloaded().bestStreak == water.bestStreak)
        #expect(water.bestStreak == 6)
        water.apply(.timeZoneSet(.utc, movedAtUnixMilliseconds: nil))
        #expect(water.bestStreak == 6 && water.streak(endingOn: today, today: today) == 6)
        water.apply(try water.validateUnexcuse([today.adding(days: -3)], today: today)[0])
        #expect(water.bestStreak == 3 && reloaded().bestStreak == 3)
    }

    @Test("a changed goal changes today's mark")
    func goalChangesToday() throws {
        var water = try diary([2000, 2000, 2000])
        #expect(water.streak(endingOn: today, today: today) == 3)
        water.apply(try water.validateGoal(2500, now: noon))
        #expect(water.streak(endingOn: today, today: today) == 2)
        #expect(water.bestStreak == 2)
    }

    @Test("at most 14 excused days in any 28, and the refusal names the window")
    func limit() throws {
        var water = WaterDiary(timeZone: .utc)
        let first = (0..<10).map { today.adding(days: -20 + $0) }
        for mutation in try water.validateExcuse(first, reason: "travel", today: today) { water.apply(mutation) }
        let next = (0..<4).map { today.adding(days: -2 + $0) }
        for mutation in try water.validateExcuse(next, reason: "sick", today: today) { water.apply(mutation) }
        #expect(water.excused.count == 14)
        let error = #expect(throws: DomainError.self) {
            try water.validateExcuse([today.adding(days: 3)], reason: "sick", today: today)
        }
        #expect(error?.kind == .invalid && error?.field == "days")
        #expect(error?.message.contains("at most 14 days can be excused in any 28") == true)
        // 28 days after the first excused day the window has moved on.
        #expect(try water.validateExcuse([today.adding(days: 8)], reason: "sick", today: today).count == 1)
        // Excusing a day again for the same reason writes nothing (a replay); a new reason does.
        #expect(try water.validateExcuse([next[0]], reason: "sick", today: today).isEmpty)
        #expect(try water.validateExcuse([next[0]], reason: "travel", today: today).count == 1)
        // Issue 32: excusing it again with no reason keeps the one it has; a day not excused yet
        // in the same call is excused.
        let again = try water.validateExcuse([next[0], today.adding(days: 9)], reason: "", today: today)
        #expect(again.count == 1)
        for mutation in again { water.apply(mutation) }
        #expect(water.excused[next[0]] == "sick" && water.excused[today.adding(days: 9)] == "")
    }

    @Test("a day too far ahead or back, or a reason with a control character, is refused")
    func badInput() throws {
        let water = WaterDiary(timeZone: .utc)
        #expect(throws: DomainError.self) {
            try water.validateExcuse([today.adding(days: 29)], reason: "", today: today)
        }
        #expect(throws: DomainError.self) {
            try water.validateExcuse([today.adding(days: -367)], reason: "", today: today)
        }
        #expect(throws: DomainError.self) { try water.validateExcuse([today], reason: "sick\u{1B}[2J", today: today) }
        #expect(throws: DomainError.self) { try water.validateUnexcuse([], today: today) }
    }

    @Test("the best streak as it stood on a day: a past week's board shows the best of then, not of today")
    func bestThrough() throws {
        let first = try #require(LocalDate("2026-01-01"))
        // 1-3 met, 4 missed, 5-9 met with the 7th excused, then missed up to today, the 20th.
        let marks: [StreakMark] = [.counts, .counts, .counts, .breaks, .counts, .counts, .neutral, .counts, .counts]
        let mark = { (date: LocalDate) -> StreakMark in
            let index = first.days(to: date)
            return index >= 0 && index < marks.count ? marks[index] : .breaks
        }
        let runs = StreakRuns(marked: marks.enumerated().map { (first.adding(days: $0.offset), $0.element) })
        let today = first.adding(days: 19)
        #expect(runs.best == 4)
        let bests = (0..<12).map { runs.best(through: first.adding(days: $0), today: today, mark: mark) }
        #expect(bests == [1, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4])
        #expect(runs.best(through: first.adding(days: -1), today: today, mark: mark) == 0)
        #expect(runs.best(through: today, today: today, mark: mark) == 4)

        // On the 9th (met), with the three days after it excused ahead: the newest run reaches
        // past today, yet the current week's board reads no run and asks for no mark (a log's
        // board is on the hot path).
        let ninth = first.adding(days: 8)
        var ahead = runs
        var calls = 0
        let counting = { (date: LocalDate) -> StreakMark in
            calls += 1
            return date > ninth ? .neutral : mark(date)
        }
        for offset in 1...3 {
            ahead.change(ninth.adding(days: offset), from: .breaks, to: .neutral, mark: counting)
        }
        calls = 0
        #expect(ahead.best(through: ninth, today: ninth, mark: counting) == 4)
        #expect(calls == 0)
    }

    @Test("a log costs the same streak work after 100 000 days of history as after 100")
    func streakWorkIsFlat() {
        // Marks asked for while a day is added at the end of a run and the streak is read: the
        // work the runs do per log, counted, not timed.
        func work(historyDays: Int) -> Int {
            let first = LocalDate(daysSinceEpoch: 0)
            var runs = StreakRuns(marked: (0..<historyDays).map { (first.adding(days: $0), .counts) })
            var calls = 0
            let last = first.adding(days: historyDays)
            let mark = { (date: LocalDate) -> StreakMark in
                calls += 1
                return date <= last ? .counts : .breaks
            }
            runs.change(last, from: .breaks, to: .counts, mark: mark)
            #expect(runs.current(endingOn: last, today: last, mark: mark) == historyDays + 1)
            #expect(runs.best == historyDays + 1)
            return calls
        }
        let small = work(historyDays: 100)
        let large = work(historyDays: 100_000)
        #expect(small == large)
        #expect(large <= 1)
    }
}
