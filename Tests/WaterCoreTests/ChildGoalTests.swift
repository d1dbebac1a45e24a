import Testing
import WaterCore

/// Issue 32, item 16: a child's goal from EFSA's adequate intakes of water from drinks (2010).
@Suite("A child's goal by age")
struct ChildGoalTests {
    @Test(
        "1.0 l at 2-3 years, 1.2 l at 4-8, 1.5 l at 9-13, nothing outside, every one a goal the diary takes",
        arguments: [
            (1, nil), (2, 1000), (3, 1000), (4, 1200), (8, 1200), (9, 1500), (13, 1500), (14, nil),
        ] as [(Int, Int32?)])
    func goals(age: Int, millilitres: Int32?) {
        #expect(ChildGoal.millilitres(forAge: age) == millilitres)
        if let millilitres { #expect(WaterLimits.dailyGoalMillilitres.contains(millilitres)) }
        #expect((millilitres != nil) == ChildGoal.ages.contains(age))
    }
}
