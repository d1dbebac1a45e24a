import WaterCore
import WaterProtocol

/// Domain values as the messages of `proto/`.
enum Wire {
    static func day(_ day: WaterDay) -> WaterV1.DaySummary {
        WaterV1.DaySummary(
            date: day.date.description, amountMl: day.amountMillilitres, goalMl: day.goalMillilitres,
            progress: day.progress, percent: UInt32(day.percent), remainingMl: day.remainingMillilitres,
            count: UInt32(day.count), goalMet: day.isGoalMet)
    }

    static func entry(_ entry: WaterEntry, in water: WaterDiary) -> WaterV1.WaterEntry {
        WaterV1.WaterEntry(
            entryID: entry.id.description, amountMl: entry.amountMillilitres,
            atUnixMs: entry.unixMilliseconds, date: water.date(of: entry).description)
    }

    static func settings(_ water: WaterDiary) -> WaterV1.Settings {
        WaterV1.Settings(
            dailyGoalMl: water.dailyGoalMillilitres, usualCupMl: water.usualCupMillilitres,
            quickCupsMl: water.quickCupsMillilitres, timeZone: water.timeZone.identifier)
    }

    static func member(_ account: Account) -> WaterV1.Member {
        WaterV1.Member(
            memberID: account.id, username: account.username, displayName: account.displayName,
            role: account.role == .admin ? .admin : .member, timeZone: account.timeZone.identifier)
    }

    static func board(_ board: WeeklyBoard, now: Int64) -> WaterV1.WeeklyBoard {
        WaterV1.WeeklyBoard(
            week: board.week.description, startsOn: board.week.monday.description,
            order: board.order == .total ? .total : .progress,
            rows: board.standings.map { standing in
                WaterV1.BoardRow(
                    rank: UInt32(standing.rank), username: standing.username,
                    displayName: standing.displayName, totalMl: standing.totalMillilitres,
                    daysMet: UInt32(standing.daysMet), averageProgress: standing.averageProgress,
                    averagePercent: UInt32(standing.averagePercent), streakDays: UInt32(standing.streakDays),
                    habitCheckins: UInt32(standing.habitCheckIns), days: standing.days.map(day))
            },
            generatedAtUnixMs: now)
    }
}
