/// Values that each hold from a day on. The value in force on a day is the last one set on or
/// before it, so a change applies to its own day and the future and never rewrites a past day:
/// how a member's goal and privacy are kept (the seed's per-day `dailyGoals` snapshots, kept as
/// the changes that produce them).
public struct DayHistory<Value: Hashable & Sendable>: Hashable, Sendable {
    public struct Change: Hashable, Sendable {
        public var from: LocalDate
        public var value: Value
    }

    /// What every day before the first change has.
    public let original: Value
    /// Sorted by `from`, at most one change a day: bounded by the days there have been.
    public private(set) var changes: [Change] = []

    public init(original: Value) {
        self.original = original
    }

    /// The history holding `changes`, or nil when they are not sorted one a day.
    public init?(original: Value, changes: [Change]) {
        guard zip(changes, changes.dropFirst()).allSatisfy({ $0.from < $1.from }) else { return nil }
        self.original = original
        self.changes = changes
    }

    /// The value set most recently: what today and the future get.
    public var current: Value { changes.last?.value ?? original }

    /// The value in force on `date`.
    public func value(on date: LocalDate) -> Value {
        changes.lastIndex(atOrBefore: date, by: \.from).map { changes[$0].value } ?? original
    }

    /// Sets `value` from `date` on, replacing any change on or after that day.
    public mutating func set(_ value: Value, from date: LocalDate) {
        changes.removeAll { $0.from >= date }
        changes.append(Change(from: date, value: value))
    }
}
