/// A change to a member's water diary, as the journal records it. Each case holds the final
/// values, so applying a mutation never depends on anything but the state it is applied to.
public enum WaterMutation: Hashable, Sendable {
    case logged(WaterEntry)
    /// The entry's new amount and time; the id stays.
    case edited(WaterEntry)
    case deleted(RecordID)
    case goalSet(Int32, from: LocalDate)
    case usualCupSet(Int32)
    /// The drink `log` logs when none is named: one of the household's drinks when it was set.
    case usualDrinkSet(String)
    /// A named cup kept (or the one of that name replaced).
    case cupSaved(NamedCup)
    case cupRemoved(String)
    /// The member moved to the zone at the instant (unix milliseconds): days from then on count
    /// there, earlier ones stay as they were. Without an instant (a new archive, or a record
    /// from before moves were remembered) every day counts in the zone.
    case timeZoneSet(MemberTimeZone, movedAtUnixMilliseconds: Int64?)
    /// The day is excused (sick, travelling): it leaves the board's average and breaks no streak.
    case excused(LocalDate, reason: String)
    case unexcused(LocalDate)
}
