/// The water diary's ranges and defaults, from the WaterDiary seed (DESIGN.md section 4).
public enum WaterLimits {
    /// One entry's amount.
    public static let amountMillilitres: ClosedRange<Int32> = 1...2000
    /// The daily goal.
    public static let dailyGoalMillilitres: ClosedRange<Int32> = 500...10_000
    public static let defaultDailyGoalMillilitres: Int32 = 2000
    /// The usual cup, which `water-client log` without an amount records.
    public static let usualCupMillilitres: ClosedRange<Int32> = 1...2000
    public static let defaultUsualCupMillilitres: Int32 = 250
    /// The cups every member is offered, besides their usual one.
    public static let standardCupsMillilitres: [Int32] = [150, 250, 350]

    /// The quick cups: 150, 250, 350 and the usual cup, de-duplicated and sorted.
    public static func quickCupsMillilitres(usualCup: Int32) -> [Int32] {
        Array(Set(standardCupsMillilitres + [usualCup])).sorted()
    }
}
