import WaterCore
import WaterServer

/// What the wall shows, as no one's board sees it (`WeeklyBoard.view(for: nil)`, the filter
/// every member's board and Home Assistant go through): no hidden member, and no millilitres of
/// a member whose privacy is percent (``Row/amounts`` is nil for them). Pure values; the page is
/// drawn from them alone, so nothing the board filtered out can reach the browser.
struct WallBoard: Equatable, Sendable {
    struct Row: Equatable, Sendable {
        var rank: Int
        var displayName: String
        var averagePercent: Int
        var daysMet: Int
        var streakDays: Int
        var todayPercent: Int
        /// This week's total and today's amount and goal; nil for a percent member.
        var amounts: (weekMillilitres: Int32, todayMillilitres: Int32, goalMillilitres: Int32)?

        static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.rank == rhs.rank && lhs.displayName == rhs.displayName && lhs.averagePercent == rhs.averagePercent
                && lhs.daysMet == rhs.daysMet && lhs.streakDays == rhs.streakDays
                && lhs.todayPercent == rhs.todayPercent
                && lhs.amounts.map(Amounts.init) == rhs.amounts.map(Amounts.init)
        }

        private struct Amounts: Equatable {
            var week: Int32, today: Int32, goal: Int32
            init(_ amounts: (Int32, Int32, Int32)) { (week, today, goal) = amounts }
        }
    }

    var week: String
    var rows: [Row]

    /// Who leads, by what the wall shows of them: the first row with anything to show.
    var leader: String? {
        rows.first { $0.averagePercent > 0 || ($0.amounts?.weekMillilitres ?? 0) > 0 }?.displayName
    }

    /// The board now, from the feed's members; the caller reads it durably.
    static func build(_ feed: BoardFeed, now: Int64) -> WallBoard {
        let readable = feed.members().readable.map(\.member)
        let week = feed.currentWeek(now: now)
        let board = WeeklyBoard(members: readable, week: week, order: .progress, now: now)
        let byUsername = Dictionary(readable.map { ($0.username, $0) }) { first, _ in first }
        let rows = board.view(for: nil).compactMap { row -> Row? in
            guard !row.hiddenSince, let member = byUsername[row.standing.username] else { return nil }
            let standing = row.standing
            let today = member.water.day(member.water.today(atUnixMilliseconds: now))
            return Row(
                rank: standing.rank, displayName: standing.displayName, averagePercent: standing.averagePercent,
                daysMet: standing.daysMet, streakDays: standing.streakDays, todayPercent: today.percent,
                amounts: row.amountsHidden
                    ? nil : (standing.totalMillilitres, today.amountMillilitres, today.goalMillilitres))
        }
        return WallBoard(week: "\(week)", rows: rows)
    }
}
