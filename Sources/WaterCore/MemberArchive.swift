/// Everything one member keeps: the water diary and the habits. One archive on disk.
public struct MemberArchive: Hashable, Sendable {
    public var water: WaterDiary
    public var habits = HabitBook()

    public init(timeZone: MemberTimeZone) {
        self.water = WaterDiary(timeZone: timeZone)
    }

    public mutating func apply(_ mutation: MemberMutation) {
        switch mutation {
        case .water(let change):
            // Habits' streaks follow the days the member excuses.
            let excuseDate: LocalDate? =
                switch change {
                case .excused(let date, _), .unexcused(let date): date
                default: nil
                }
            let was = excuseDate.map { water.excused[$0] != nil } ?? false
            water.apply(change)
            if let excuseDate {
                let water = self.water
                habits.excuseChanged(on: excuseDate, was: was) { water.excused[$0] != nil }
            }
        case .habit(let change):
            habits.apply(change, excused: water.excused)
        }
    }

    /// The seed's load-time checks over the whole archive.
    public var isValid: Bool { water.isValid && habits.isValid }
}

/// A change to a member's archive.
public enum MemberMutation: Hashable, Sendable {
    case water(WaterMutation)
    case habit(HabitMutation)
}
