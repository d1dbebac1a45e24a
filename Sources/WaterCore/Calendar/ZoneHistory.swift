/// The time zones a member's days have been counted in, each from the instant they moved. A
/// drink's day is counted in the zone the member was in when they drank it, so moving (a trip,
/// `zone Europe/Vienna`) changes today and later days only: a finished week keeps its figures.
public struct ZoneHistory: Hashable, Sendable {
    public struct Change: Hashable, Sendable {
        /// The instant of the move.
        public var fromUnixMilliseconds: Int64
        /// The member's day at that instant, before the move. No later instant counts on an
        /// earlier day, even where the new zone's clock is behind (a move west): the hours the
        /// move would give back belong to this day, which is then a little longer.
        public var firstDay: LocalDate
        public var zone: MemberTimeZone
    }

    /// The zone before the first move: the only one, for a member who never moved (and for an
    /// archive written before moves were remembered, whose every day counts in its last zone).
    public let original: MemberTimeZone
    /// In the order of their instants, at most one a day (a second move the same day replaces
    /// the first's zone), each to a zone other than the one before: bounded by the days.
    public private(set) var changes: [Change] = []

    public init(_ zone: MemberTimeZone) {
        self.original = zone
    }

    /// The history holding `changes`, or nil when they are out of order, more than one a day,
    /// or a move to the zone already in force.
    public init?(original: MemberTimeZone, changes: [Change]) {
        let zones = [original] + changes.map(\.zone)
        guard
            zip(changes, changes.dropFirst()).allSatisfy({
                $0.fromUnixMilliseconds < $1.fromUnixMilliseconds && $0.firstDay < $1.firstDay
            }),
            zip(zones, zones.dropFirst()).allSatisfy({ $0 != $1 })
        else { return nil }
        self.original = original
        self.changes = changes
    }

    /// The zone moved to last: what today and the future count in.
    public var current: MemberTimeZone { changes.last?.zone ?? original }

    /// The member's day at `unixMilliseconds`.
    public func date(atUnixMilliseconds unixMilliseconds: Int64) -> LocalDate {
        guard let change = change(atUnixMilliseconds: unixMilliseconds) else {
            return original.date(atUnixMilliseconds: unixMilliseconds)
        }
        return max(change.zone.date(atUnixMilliseconds: unixMilliseconds), change.firstDay)
    }

    /// The zone the member was in at `unixMilliseconds`: the wall clock their drink was at.
    public func zone(atUnixMilliseconds unixMilliseconds: Int64) -> MemberTimeZone {
        change(atUnixMilliseconds: unixMilliseconds)?.zone ?? original
    }

    /// Moves to `zone` at `unixMilliseconds`. A move dated before a later one (a clock set
    /// back) replaces it.
    public mutating func move(to zone: MemberTimeZone, atUnixMilliseconds unixMilliseconds: Int64) {
        changes.removeAll { $0.fromUnixMilliseconds >= unixMilliseconds }
        let day = date(atUnixMilliseconds: unixMilliseconds)
        var from = unixMilliseconds
        if let last = changes.last, last.firstDay == day {
            // The day's earlier move now goes here instead, from its own instant on.
            from = last.fromUnixMilliseconds
            changes.removeLast()
        }
        guard zone != current else { return }
        changes.append(Change(fromUnixMilliseconds: from, firstDay: day, zone: zone))
    }

    /// The last move at or before `unixMilliseconds`.
    private func change(atUnixMilliseconds unixMilliseconds: Int64) -> Change? {
        changes.lastIndex(atOrBefore: unixMilliseconds, by: \.fromUnixMilliseconds).map { changes[$0] }
    }
}
