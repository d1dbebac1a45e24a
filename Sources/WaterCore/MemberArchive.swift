/// Everything one member keeps: the water diary and the habits. One archive on disk.
public struct MemberArchive: Hashable, Sendable {
    public var water: WaterDiary
    public var habits = HabitBook()

    public init(timeZone: MemberTimeZone) {
        self.water = WaterDiary(timeZone: timeZone)
    }

    public mutating func apply(_ mutation: MemberMutation) {
        switch mutation {
        case .water(let change): water.apply(change)
        case .habit(let change): habits.apply(change)
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
