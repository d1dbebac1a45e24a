/// One drink: how much and when. The seed's `WaterEntry`, with the client's UUID as its id.
public struct WaterEntry: Hashable, Sendable {
    public var id: RecordID
    /// 1 to 2000 ml.
    public var amountMillilitres: Int32
    public var unixMilliseconds: Int64

    public init(id: RecordID, amountMillilitres: Int32, unixMilliseconds: Int64) {
        self.id = id
        self.amountMillilitres = amountMillilitres
        self.unixMilliseconds = unixMilliseconds
    }
}

/// One day of one member: the seed's `WaterDay`.
public struct WaterDay: Hashable, Sendable {
    public var date: LocalDate
    public var amountMillilitres: Int32
    /// The goal in force on that day.
    public var goalMillilitres: Int32
    public var count: Int

    public init(date: LocalDate, amountMillilitres: Int32, goalMillilitres: Int32, count: Int) {
        self.date = date
        self.amountMillilitres = amountMillilitres
        self.goalMillilitres = goalMillilitres
        self.count = count
    }

    /// min(amount / goal, 1): the ring stops at a full circle, the amount keeps counting.
    public var progress: Double { min(Double(amountMillilitres) / Double(goalMillilitres), 1) }
    /// progress x 100, truncated: 250 of 2000 is 12. In whole numbers: through a Double, 580 of
    /// 2000 came out 28 (0.29 x 100 is 28.999...).
    public var percent: Int { Int(min(amountMillilitres, goalMillilitres)) * 100 / Int(goalMillilitres) }
    /// What is left to the goal, never negative.
    public var remainingMillilitres: Int32 { max(goalMillilitres - amountMillilitres, 0) }
    public var isGoalMet: Bool { amountMillilitres >= goalMillilitres }
}
