/// How the board ranks members.
public enum BoardOrder: Hashable, Sendable {
    /// Average capped daily progress, then total, then username: fair across different goals,
    /// and a goal changed later never rewrites a past ranking (each day keeps its own goal).
    case progress
    /// Total millilitres, then average progress, then username.
    case total
    /// Chores done this week (the household's chores, credited to who did them), then the
    /// truncated average percent, then username.
    case chores
}

/// A member as the board sees them.
public struct BoardMember: Sendable {
    public var username: String
    public var displayName: String
    public var water: WaterDiary
    public var habits: HabitBook
    /// When the account was made; with the first drink, when the member joined.
    public var createdAtUnixMilliseconds: Int64?
    /// The times the member was removed and brought back.
    public var absences: [Account.Absence]
    /// What the others may see of the member, each level from the day it was chosen
    /// (``WeeklyBoard/view(for:)`` applies it).
    public var privacyHistory: DayHistory<Privacy>
    /// The household's chores the member did and had a turn at.
    public var chores = MemberChores()

    /// The level chosen last.
    public var privacy: Privacy { privacyHistory.current }

    /// A member whose privacy is `privacyHistory`, or `privacy` on every day.
    public init(
        username: String, displayName: String, water: WaterDiary, habits: HabitBook = HabitBook(),
        createdAtUnixMilliseconds: Int64? = nil, absences: [Account.Absence] = [], privacy: Privacy = .full,
        privacyHistory: DayHistory<Privacy>? = nil
    ) {
        self.username = username
        self.displayName = displayName
        self.water = water
        self.habits = habits
        self.createdAtUnixMilliseconds = createdAtUnixMilliseconds
        self.absences = absences
        self.privacyHistory = privacyHistory ?? DayHistory(original: privacy)
    }

    /// The days the member belonged to the household (``Membership``).
    public var membership: Membership {
        Membership(createdAtUnixMilliseconds: createdAtUnixMilliseconds, absences: absences, water: water)
    }
}

/// One member's line on the board.
public struct BoardStanding: Hashable, Sendable {
    /// 1 for the leader; members equal on every ranking key but the name share a rank.
    public var rank: Int
    public var username: String
    public var displayName: String
    /// Every day of the week so far, excused ones too.
    public var totalMillilitres: Int32
    /// Days met among the counted ones (not excused, not before joining).
    public var daysMet: Int
    /// Mean of min(amount / goal, 1) over the week's counted days so far.
    public var averageProgress: Double
    public var streakDays: Int
    public var bestStreakDays: Int
    /// Days of the week so far that leave the average: excused, or before the member joined.
    public var excusedDays: Int
    /// Every day so far left the average: the row ranks last.
    public var allExcused: Bool
    public var habitCheckIns: Int
    /// The days behind the figures, Monday first, up to the member's today; a day before the
    /// member did not belong to the household is excused with the reason (``Membership``).
    public var days: [WaterDay]
    /// The member's privacy as the week stood (on its last day): what ranks them among the
    /// others, so a level chosen later never rewrites a finished week.
    public var privacy: Privacy = .full
    /// The level they have chosen since (today's): what their row may still show.
    public var privacyNow: Privacy = .full
    /// Chores the member did this week (by the household's calendar), whoever's turn it was.
    public var choresDone = 0
    /// Chores due this week that were the member's (done, skipped or still open).
    public var choresDue = 0

    /// averageProgress x 100, truncated, as exact arithmetic would: the sum of the days'
    /// fractions is rarely exact in binary (71 % came out 70), and a millionth of a percent is
    /// the most a week's rounding errors add up to.
    public var averagePercent: Int { Int(averageProgress * 100 + 1e-6) }
}

/// The household's ranking for one week.
public struct WeeklyBoard: Hashable, Sendable {
    public var week: ISOWeek
    public var order: BoardOrder
    public var standings: [BoardStanding]

    /// Ranks `members` for `week` as of `now`. Each member's days end at their own today, in
    /// their own time zone; a past week counts all seven days. Days the member did not belong to
    /// the household (``Membership``) are not counted, and a past week with none of theirs
    /// (joined later, or removed all week) is not theirs at all. (The current week keeps
    /// everyone, even one whose account is dated after it by a clock set back.)
    public init(members: [BoardMember], week: ISOWeek, order: BoardOrder, now: Int64) {
        self.week = week
        self.order = order
        let members = members.map { ($0, $0.membership) }.filter { member, membership in
            week.contains(member.water.today(atUnixMilliseconds: now))
                || week.days.contains { membership.reason(on: $0) == nil }
        }
        var standings = members.map { member, membership in
            let today = member.water.today(atUnixMilliseconds: now)
            let days = week.days.filter { $0 <= today }.map { membership.marked(member.water.day($0)) }
            let counted = days.filter { !$0.isExcused }
            let lastDay = min(week.sunday, today)
            return BoardStanding(
                rank: 0, username: member.username, displayName: member.displayName,
                totalMillilitres: days.reduce(0) { $0 + $1.amountMillilitres },
                daysMet: counted.filter(\.isGoalMet).count,
                averageProgress: counted.isEmpty ? 0 : counted.reduce(0) { $0 + $1.progress } / Double(counted.count),
                streakDays: lastDay < week.monday ? 0 : member.water.streak(endingOn: lastDay, today: today),
                bestStreakDays: lastDay < week.monday ? 0 : member.water.bestStreak(through: lastDay, today: today),
                excusedDays: days.count - counted.count,
                allExcused: !days.isEmpty && counted.isEmpty,
                habitCheckIns: member.habits.checkIns(in: week),
                days: days, privacy: member.privacyHistory.value(on: week.sunday), privacyNow: member.privacy)
        }
        for (index, (member, _)) in members.enumerated() {
            standings[index].choresDone = member.chores.done.count(where: week.contains)
            standings[index].choresDue = member.chores.due.count(where: week.contains)
        }
        // A week with every day excused ranks after everyone who had a day to count.
        let keys = { (standing: BoardStanding) -> (Int, Double, Double) in
            let counts = standing.allExcused ? 0 : 1
            switch order {
            case .progress: return (counts, standing.averageProgress, Double(standing.totalMillilitres))
            case .total: return (counts, Double(standing.totalMillilitres), standing.averageProgress)
            // Chores count on excused days too: whoever did them ranks by them; then the percent
            // everyone sees (nothing finer, so that no private figure parts two rows).
            case .chores: return (1, Double(standing.choresDone), Double(standing.averagePercent))
            }
        }
        standings.sort { lhs, rhs in
            let (l, r) = (keys(lhs), keys(rhs))
            return l != r ? l > r : lhs.username < rhs.username
        }
        for index in standings.indices {
            let tiesPrevious = index > 0 && keys(standings[index]) == keys(standings[index - 1])
            standings[index].rank = tiesPrevious ? standings[index - 1].rank : index + 1
        }
        self.standings = standings
    }
}
