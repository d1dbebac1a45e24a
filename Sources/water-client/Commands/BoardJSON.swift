import WaterProtocol

/// A board reply as `--json` prints it: as the proto's JSON, except that a row whose amounts
/// are hidden has no millilitre or entry-count keys at all (the server sent none; printing
/// their proto3 defaults as 0 would read as "drank nothing").
struct BoardReplyJSON: Encodable {
    var board: WeeklyBoardJSON?

    init(_ board: WaterV1.WeeklyBoard?) {
        self.board = board.map(WeeklyBoardJSON.init)
    }
}

struct WeeklyBoardJSON: Encodable {
    var week: String
    var startsOn: String
    var order: WaterV1.BoardOrder
    var rows: [BoardRowJSON]
    var generatedAtUnixMs: Int64
    var unavailable: [WaterV1.Member]
    var viewerPrivacy: WaterV1.Privacy

    init(_ board: WaterV1.WeeklyBoard) {
        (week, startsOn, order, generatedAtUnixMs) = (board.week, board.startsOn, board.order, board.generatedAtUnixMs)
        (rows, unavailable, viewerPrivacy) = (board.rows.map(BoardRowJSON.init), board.unavailable, board.viewerPrivacy)
    }
}

/// One row: the proto's JSON, or only what a `percent` member lets others see: the keys are
/// listed (not the proto's less some), so a field added to BoardRow is not printed for them
/// until someone decides it may be.
struct BoardRowJSON: Encodable {
    var row: WaterV1.BoardRow

    func encode(to encoder: any Encoder) throws {
        guard row.amountsHidden else { return try row.encode(to: encoder) }
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(row.rank, forKey: .rank)
        guard !row.hiddenSince else {
            try container.encode(true, forKey: .amountsHidden)
            return try container.encode(true, forKey: .hiddenSince)
        }
        try container.encode(row.username, forKey: .username)
        try container.encode(row.displayName, forKey: .displayName)
        try container.encode(row.daysMet, forKey: .daysMet)
        try container.encode(row.averageProgress, forKey: .averageProgress)
        try container.encode(row.averagePercent, forKey: .averagePercent)
        try container.encode(row.streakDays, forKey: .streakDays)
        try container.encode(row.habitCheckins, forKey: .habitCheckins)
        try container.encode(row.excusedDays, forKey: .excusedDays)
        try container.encode(row.bestStreakDays, forKey: .bestStreakDays)
        try container.encode(row.allExcused, forKey: .allExcused)
        try container.encode(row.days.map(PercentDayJSON.init), forKey: .days)
        try container.encode(row.onlyYouSeeThis, forKey: .onlyYouSeeThis)
        try container.encode(true, forKey: .amountsHidden)
    }

    /// Snake case by JSONOutput's key strategy, as the proto's own keys are.
    enum Key: CodingKey {
        case rank, username, displayName, daysMet, averageProgress, averagePercent, streakDays, habitCheckins
        case excusedDays, bestStreakDays, allExcused, days, onlyYouSeeThis, amountsHidden, hiddenSince
    }
}

/// A day of a `percent` member's row: no millilitres, no count, whether excused but not why.
struct PercentDayJSON: Encodable {
    var date: String
    var progress: Double
    var percent: UInt32
    var goalMet, excused: Bool

    init(_ day: WaterV1.DaySummary) {
        (date, progress, percent, goalMet, excused) = (day.date, day.progress, day.percent, day.goalMet, day.excused)
    }
}
