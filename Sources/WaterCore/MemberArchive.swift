/// Everything one member keeps: the water diary and the habits. One archive on disk.
public struct MemberArchive: Hashable, Sendable {
    public var water: WaterDiary
    public var habits = HabitBook()
    /// What the rest of the household sees of this member (``Privacy`` says why it lives here).
    public var privacy = Privacy.full

    public init(timeZone: MemberTimeZone) {
        self.water = WaterDiary(timeZone: timeZone)
    }

    public mutating func apply(_ mutation: MemberMutation) {
        switch mutation {
        case .water(let change): water.apply(change)
        case .habit(let change): habits.apply(change)
        case .privacySet(let level): privacy = level
        }
    }

    /// The seed's load-time checks over the whole archive.
    public var isValid: Bool { water.isValid && habits.isValid }
}

/// A change to a member's archive.
public enum MemberMutation: Hashable, Sendable {
    case water(WaterMutation)
    case habit(HabitMutation)
    case privacySet(Privacy)
}
