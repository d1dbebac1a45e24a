import Testing
import WaterCore
import WaterZoneInfo

/// Thursday 2026-12-03 12:00 UTC: the board's week (2026-W49) has run Monday to Thursday.
let thursday: Int64 = noon + 3 * day
let week = ISOWeek("2026-W49")!

/// A member who drinks `amounts[i]` at 09:00 UTC on day i of the week (Monday first), with
/// goal changes as (day index, goal) applied on those days, in time order.
func member(
    _ name: String, amounts: [Int32], goals: [(Int, Int32)] = [], lastWeek: [Int32] = [], privacy: Privacy = .full
) throws -> BoardMember {
    var water = WaterDiary(timeZone: .utc)
    var n: UInt64 = 0
    let monday9 = noon - 3 * hour
    // A day's amount as drinks of at most 1000 ml, a minute apart.
    func drink(_ amount: Int32, at: Int64) throws {
        var left = amount
        var minute: Int64 = 0
        while left > 0 {
            n += 1
            let cup = min(left, 1000)
            water.apply(
                try water.validateLog(
                    id: id(n), amountMillilitres: cup, unixMilliseconds: at + minute * 60_000,
                    now: at + minute * 60_000
                ).mutation)
            left -= cup
            minute += 1
        }
    }
    for (goalDay, goal) in goals where goalDay < 0 {
        water.apply(try water.validateGoal(goal, now: monday9 + Int64(goalDay - 7) * day))
    }
    for (index, amount) in lastWeek.enumerated() { try drink(amount, at: monday9 + Int64(index - 7) * day) }
    for (index, amount) in amounts.enumerated() {
        for (goalDay, goal) in goals where goalDay == index {
            water.apply(try water.validateGoal(goal, now: monday9 + Int64(index) * day))
        }
        try drink(amount, at: monday9 + Int64(index) * day)
    }
    return BoardMember(username: name, displayName: name.capitalized, water: water, privacy: privacy)
}

@Suite("WeeklyBoard")
struct WeeklyBoardTests {
    @Test("average percent is truncated as exact arithmetic would: 1420 of 2000 on each of four days is 71 %")
    func averagePercentExact() throws {
        let board = WeeklyBoard(
            members: [try member("ann", amounts: [1420, 1420, 1420, 1420])], week: week, order: .progress,
            now: thursday)
        #expect(board.standings.first?.averagePercent == 71)
    }

    /// ana: goal 2000; 2000, 1000, 2500, 500 -> progress 1, .5, 1, .25 -> mean .6875; 6000 ml; 2 met.
    /// ben: goal 1500 from last week; 1500 x 3, then nothing yet -> 1, 1, 1, 0 -> .75; 4500 ml; 3 met.
    /// cai: 3000 a day, goal 3000 from Wednesday -> 1, 1, 1, 1 -> 1.0; 12000 ml; 4 met.
    private func family() throws -> [BoardMember] {
        [
            try member("ana", amounts: [2000, 1000, 2500, 500]),
            try member(
                "ben", amounts: [1500, 1500, 1500, 0], goals: [(-1, 1500)], lastWeek: [0, 0, 0, 0, 0, 0, 1500]),
            try member("cai", amounts: [3000, 3000, 3000, 3000], goals: [(2, 3000)]),
        ]
    }

    @Test("ranks by average capped progress, as computed by hand")
    func progressRanking() throws {
        let board = WeeklyBoard(members: try family(), week: week, order: .progress, now: thursday)
        let rows = board.standings.map { ($0.rank, $0.username, $0.totalMillilitres, $0.daysMet, $0.averagePercent) }
        #expect(rows.map(\.0) == [1, 2, 3])
        #expect(rows.map(\.1) == ["cai", "ben", "ana"])
        #expect(rows.map(\.2) == [12000, 4500, 6000])
        #expect(rows.map(\.3) == [4, 3, 2])
        #expect(rows.map(\.4) == [100, 75, 68])
        #expect(board.standings[2].averageProgress == 0.6875)
        // Streaks: cai 4; ben 4 (Sunday of last week too, today still open); ana 1 (Wednesday).
        #expect(board.standings.map(\.streakDays) == [4, 4, 1])
        // --explain: the days behind each line, Monday to Thursday.
        #expect(board.standings[2].days.map(\.percent) == [100, 50, 100, 25])
        #expect(board.standings[0].days.map(\.goalMillilitres) == [2000, 2000, 3000, 3000])
    }

    @Test("ranks by total with --by total")
    func totalRanking() throws {
        let board = WeeklyBoard(members: try family(), week: week, order: .total, now: thursday)
        #expect(board.standings.map(\.username) == ["cai", "ana", "ben"])
    }

    @Test("a goal changed mid-week leaves earlier days and last week's ranking untouched")
    func goalChangeKeepsThePast() throws {
        var members = try family()
        let lastWeekBefore = WeeklyBoard(members: members, week: week.previous, order: .progress, now: thursday)
        let mondayBefore = members[0].water.day(week.monday)
        members[0].water.apply(try members[0].water.validateGoal(10_000, now: thursday))
        let lastWeekAfter = WeeklyBoard(members: members, week: week.previous, order: .progress, now: thursday)
        #expect(lastWeekAfter == lastWeekBefore)
        #expect(members[0].water.day(week.monday) == mondayBefore)
        let board = WeeklyBoard(members: members, week: week, order: .progress, now: thursday)
        #expect(
            board.standings.first { $0.username == "ana" }?.days.map(\.goalMillilitres) == [2000, 2000, 2000, 10_000])
    }

    @Test("counts all seven days of a past week and none of a future one")
    func pastAndFutureWeeks() throws {
        let members = try family()
        let past = WeeklyBoard(members: members, week: week.previous, order: .progress, now: thursday)
        #expect(past.standings.allSatisfy { $0.days.count == 7 })
        let future = WeeklyBoard(
            members: members, week: ISOWeek(containing: week.monday.adding(days: 7)),
            order: .progress, now: thursday)
        #expect(future.standings.allSatisfy { $0.days.isEmpty && $0.averageProgress == 0 && $0.streakDays == 0 })
    }

    @Test(
        "issue 32: a member who joined after a week is not on it; one who joined during it is, days before not counted")
    func joinedLater() throws {
        var late = try member("lea", amounts: [0, 0, 1000, 1000])
        late.createdAtUnixMilliseconds = noon + 2 * day  // Wednesday of this week
        let members = [try member("ann", amounts: [2000, 2000, 2000, 2000], lastWeek: [2000]), late]
        let last = WeeklyBoard(members: members, week: week.previous, order: .progress, now: thursday)
        #expect(last.standings.map(\.username) == ["ann"])
        let this = WeeklyBoard(members: members, week: week, order: .progress, now: thursday)
        let lea = try #require(this.standings.first { $0.username == "lea" })
        #expect(lea.excusedDays == 2 && lea.days.prefix(2).allSatisfy { $0.excuse == Membership.notYet })
        #expect(lea.averagePercent == 50)
    }

    @Test("members equal on every key share a rank, listed by username")
    func ties() throws {
        let members = [
            try member("zoe", amounts: [1000]), try member("max", amounts: [1000]), try member("ida", amounts: [2000]),
        ]
        let board = WeeklyBoard(members: members, week: week, order: .progress, now: noon)
        #expect(board.standings.map(\.username) == ["ida", "max", "zoe"])
        #expect(board.standings.map(\.rank) == [1, 2, 2])
    }

    @Test("ends each member's week at their own today")
    func memberTimeZones() throws {
        // Thursday 12:00 UTC is already Friday 01:00 in Auckland.
        let auckland = try #require(ZoneInfo.system.zone(named: "Pacific/Auckland"))
        var far = try member("kiri", amounts: [])
        far.water.apply(.timeZoneSet(auckland, movedAtUnixMilliseconds: nil))
        let board = WeeklyBoard(
            members: [far, try member("ana", amounts: [])], week: week, order: .progress, now: thursday)
        #expect(board.standings.first { $0.username == "kiri" }?.days.count == 5)
        #expect(board.standings.first { $0.username == "ana" }?.days.count == 4)
    }

    @Test("counts each member's habit check-ins of the week")
    func habitColumn() throws {
        var ana = try member("ana", amounts: [])
        let habit = try #require(
            try ana.habits.validateAdd(id: id(99), name: "read", icon: .book, color: .green, now: noon))
        ana.habits.apply(habit)
        for offset in [-1, 0, 2] {  // Sunday of last week, Monday, Wednesday
            ana.habits.apply(
                try ana.habits.validateCheck(
                    id: id(99), date: week.monday.adding(days: offset), checked: true,
                    today: week.monday.adding(days: 3)))
        }
        let board = WeeklyBoard(members: [ana], week: week, order: .progress, now: thursday)
        #expect(board.standings[0].habitCheckIns == 2)
    }
}
