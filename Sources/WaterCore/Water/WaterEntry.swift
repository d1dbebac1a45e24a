/// One drink: how much, when and of what. The seed's `WaterEntry`, with the client's UUID as
/// its id, and the drink and factor in force when it was logged (a later change of the
/// household's drinks never rewrites it).
public struct WaterEntry: Hashable, Sendable {
    public var id: RecordID
    /// 1 to 2000 ml, as drunk.
    public var amountMillilitres: Int32
    /// ``HydrationFactor/allowedHundredths``; 100 for water.
    public var factorHundredths: Int32
    public var unixMilliseconds: Int64
    /// A ``Drink`` name: at most 15 bytes, held inline.
    public var drink: String
    /// The member id of who logged it for the diary's owner (a guardian or an admin); 0: the
    /// owner. An edit keeps it: it says who made the entry.
    public var madeBy: UInt64

    public init(
        id: RecordID, amountMillilitres: Int32, unixMilliseconds: Int64, drink: String = Drink.waterName,
        factorHundredths: Int32 = HydrationFactor.water, madeBy: UInt64 = 0
    ) {
        self.id = id
        self.amountMillilitres = amountMillilitres
        self.factorHundredths = factorHundredths
        self.unixMilliseconds = unixMilliseconds
        self.drink = drink
        self.madeBy = madeBy
    }

    /// What the entry counts toward the goal (``HydrationFactor/counted(millilitres:hundredths:)``).
    public var countedMillilitres: Int32 {
        HydrationFactor.counted(millilitres: amountMillilitres, hundredths: factorHundredths)
    }

    /// Plain water at 1.00: what every entry from before drinks was.
    public var isPlainWater: Bool { drink == Drink.waterName && factorHundredths == HydrationFactor.water }
}

/// One day of one member: the seed's `WaterDay`.
public struct WaterDay: Hashable, Sendable {
    public var date: LocalDate
    /// What counts toward the goal: the sum of the entries' ``WaterEntry/countedMillilitres``.
    public var amountMillilitres: Int32
    /// The goal in force on that day.
    public var goalMillilitres: Int32
    public var count: Int
    /// The entries' millilitres as drunk.
    public var rawMillilitres: Int32
    /// Why the day is excused ("sick", "travel" or the member's words), nil when it is not.
    public var excuse: String?

    public init(
        date: LocalDate, amountMillilitres: Int32, goalMillilitres: Int32, count: Int, rawMillilitres: Int32? = nil,
        excuse: String? = nil
    ) {
        self.date = date
        self.excuse = excuse
        self.amountMillilitres = amountMillilitres
        self.goalMillilitres = goalMillilitres
        self.count = count
        self.rawMillilitres = rawMillilitres ?? amountMillilitres
    }

    /// min(amount / goal, 1): the ring stops at a full circle, the amount keeps counting.
    public var progress: Double { min(Double(amountMillilitres) / Double(goalMillilitres), 1) }
    /// progress x 100, truncated: 250 of 2000 is 12. In whole numbers: through a Double, 580 of
    /// 2000 came out 28 (0.29 x 100 is 28.999...).
    public var percent: Int { Int(min(amountMillilitres, goalMillilitres)) * 100 / Int(goalMillilitres) }
    /// What is left to the goal, never negative.
    public var remainingMillilitres: Int32 { max(goalMillilitres - amountMillilitres, 0) }
    public var isGoalMet: Bool { amountMillilitres >= goalMillilitres }
    public var isExcused: Bool { excuse != nil }
}
