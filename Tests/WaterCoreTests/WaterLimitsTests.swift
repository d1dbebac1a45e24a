import Testing
import WaterCore

@Suite("WaterLimits")
struct WaterLimitsTests {
    @Test(
        "quick cups are 150, 250, 350 and the usual cup, de-duplicated and sorted",
        arguments: [
            (250, [150, 250, 350]),
            (500, [150, 250, 350, 500]),
            (100, [100, 150, 250, 350]),
            (300, [150, 250, 300, 350]),
            (150, [150, 250, 350]),
        ] as [(Int32, [Int32])])
    func quickCups(usualCup: Int32, expected: [Int32]) {
        #expect(WaterLimits.quickCupsMillilitres(usualCup: usualCup) == expected)
    }

    @Test("keeps the seed's ranges and defaults")
    func seedRanges() {
        #expect(WaterLimits.amountMillilitres == 1...2000)
        #expect(WaterLimits.dailyGoalMillilitres == 500...10_000)
        #expect(WaterLimits.usualCupMillilitres == 1...2000)
        #expect(WaterLimits.dailyGoalMillilitres.contains(WaterLimits.defaultDailyGoalMillilitres))
        #expect(WaterLimits.usualCupMillilitres.contains(WaterLimits.defaultUsualCupMillilitres))
    }
}
