/// Everything one member keeps: the water diary and the habits. One archive on disk.
public struct MemberArchive: Hashable, Sendable {
    public var water: WaterDiary
    public var habits = HabitBook()
    /// What the rest of the household sees of this member, each level from the day it was
    /// chosen (``Privacy`` says why it lives here): a finished week is ranked by the levels of
    /// its own last day, so choosing another never rewrites it.
    public private(set) var privacyHistory = DayHistory(original: Privacy.full)

    /// The level chosen last: what today's board and every reply apply.
    public var privacy: Privacy { privacyHistory.current }

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
        case .privacySet(let level, let from?): privacyHistory.set(level, from: from)
        case .privacySet(let level, nil): privacyHistory = DayHistory(original: level)
        }
    }

    /// What the archive holds over its caps (``WaterLimits``, ``HabitBook/maximumCount``), one
    /// line each, for `water-server check`: stored before the caps, it all loads and is kept,
    /// and only writes that would add to what is over are refused.
    public var overCaps: [String] { water.overCaps + habits.overCaps }

    /// The seed's load-time checks over the whole archive.
    public var isValid: Bool { water.isValid && habits.isValid }
}

/// A change to a member's archive.
public enum MemberMutation: Hashable, Sendable {
    case water(WaterMutation)
    case habit(HabitMutation)
    /// The level from the day on; without a day (a record from before levels were kept per
    /// day, or a whole history restored) for every day.
    case privacySet(Privacy, from: LocalDate?)
}
