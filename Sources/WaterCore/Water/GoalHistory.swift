/// The daily goals a member has had, each from the day it was set: changing the goal changes
/// today and the future and never a past day (which also gives a backdated entry the goal of
/// its own day).
public typealias GoalHistory = DayHistory<Int32>

extension DayHistory where Value == Int32 {
    /// No goal set: every day has the default.
    public init() {
        self.init(original: WaterLimits.defaultDailyGoalMillilitres)
    }

    /// The history holding `changes`, or nil when they are not sorted one a day or a goal is
    /// out of range.
    public init?(changes: [Change]) {
        guard changes.allSatisfy({ WaterLimits.dailyGoalMillilitres.contains($0.value) }) else { return nil }
        self.init(original: WaterLimits.defaultDailyGoalMillilitres, changes: changes)
    }

    /// The goal set most recently: what today and the future get.
    public var currentGoalMillilitres: Int32 { current }

    /// The goal in force on `date`.
    public func goalMillilitres(on date: LocalDate) -> Int32 { value(on: date) }
}
