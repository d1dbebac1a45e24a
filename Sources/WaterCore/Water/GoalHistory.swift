/// The daily goals a member has had, each from the day it was set. The goal in force on a day
/// is the last one set on or before it, so changing the goal changes today and the future and
/// never a past day: the seed's per-day `dailyGoals` snapshots, kept as the changes that
/// produce them (which also gives a backdated entry the goal of its own day).
public struct GoalHistory: Hashable, Sendable {
    public struct Change: Hashable, Sendable {
        public var from: LocalDate
        public var goalMillilitres: Int32
    }

    /// Sorted by `from`, at most one change a day.
    public private(set) var changes: [Change] = []

    public init() {}

    /// The history holding `changes`, or nil when they are not sorted one a day or a goal is
    /// out of range.
    public init?(changes: [Change]) {
        guard zip(changes, changes.dropFirst()).allSatisfy({ $0.from < $1.from }),
            changes.allSatisfy({ WaterLimits.dailyGoalMillilitres.contains($0.goalMillilitres) })
        else { return nil }
        self.changes = changes
    }

    /// The goal set most recently: what today and the future get.
    public var currentGoalMillilitres: Int32 {
        changes.last?.goalMillilitres ?? WaterLimits.defaultDailyGoalMillilitres
    }

    /// The goal in force on `date`.
    public func goalMillilitres(on date: LocalDate) -> Int32 {
        // Binary search for the last change on or before `date`.
        var low = 0
        var high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].from <= date { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? WaterLimits.defaultDailyGoalMillilitres : changes[low - 1].goalMillilitres
    }

    /// Sets `goal` from `date` on, replacing any change on or after that day.
    public mutating func set(_ goal: Int32, from date: LocalDate) {
        changes.removeAll { $0.from >= date }
        changes.append(Change(from: date, goalMillilitres: goal))
    }
}
