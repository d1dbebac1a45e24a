/// What makes a todo item a chore: a due day, maybe a recurrence, and whose it is. Every field is
/// optional, as an item from before chores has none.
public struct Chore: Hashable, Sendable {
    /// The day it is due next, on the household's calendar.
    public var due: LocalDate?
    /// Minutes after local midnight it is due at; nil: any time that day.
    public var dueMinute: Int?
    public var recurrence: Recurrence?
    /// The member it is for, or, with a rotation, whose turn it is as stored (the turn passes on
    /// from an excused or removed member when it is read: ``TodoList/assignee(of:on:in:)``).
    public var assignee: UInt64?
    /// The members who take turns, in order; empty: no rotation.
    public var rotation: [UInt64]
    /// The occurrence done (or skipped) last, which `todo undone` takes back; nil once taken
    /// back (so a second undone changes nothing) and before the first.
    public var lastDone: LocalDate?

    /// The earliest and latest due day: the diary's earliest day to the end of the century.
    public static let dueDays = LocalDate(year: 2000, month: 1, day: 1)!...LocalDate(year: 2100, month: 12, day: 31)!
    /// Members in one rotation: a large family.
    public static let rotationMembers = 2...8

    public init(
        due: LocalDate? = nil, dueMinute: Int? = nil, recurrence: Recurrence? = nil, assignee: UInt64? = nil,
        rotation: [UInt64] = [], lastDone: LocalDate? = nil
    ) {
        self.lastDone = lastDone
        self.due = due
        self.dueMinute = dueMinute
        self.recurrence = recurrence
        self.assignee = assignee
        self.rotation = rotation
    }

    /// A chore from a request's fields: `due` (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`, empty: none,
    /// or `today` for a recurring one), `every`, the member it is for and the rotation. Nil when
    /// they are all empty (the seed's plain item).
    public static func validated(
        due dueText: String, every: String, assignee: UInt64?, rotation: [UInt64], today: LocalDate
    ) throws(DomainError) -> Chore? {
        guard !dueText.isEmpty || !every.isEmpty || assignee != nil || !rotation.isEmpty else { return nil }
        var chore = Chore(assignee: assignee, rotation: rotation)
        if !dueText.isEmpty {
            (chore.due, chore.dueMinute) = try parseDue(dueText)
        }
        if !every.isEmpty {
            let recurrence = try Recurrence.parse(every, due: chore.due ?? today)
            chore.recurrence = recurrence
            if chore.due == nil { chore.due = recurrence.first(onOrAfter: today) }
        }
        if !rotation.isEmpty {
            guard assignee == nil else {
                throw .invalid("rotate", "a chore is for one member (for_member) or a rotation (rotate), not both")
            }
            guard chore.recurrence != nil else {
                throw .invalid("rotate", "rotate needs a chore that comes back (every)")
            }
            guard rotationMembers.contains(rotation.count) else {
                throw .invalid(
                    "rotate",
                    "rotate names \(rotationMembers.lowerBound) to \(rotationMembers.upperBound) members, got \(rotation.count)"
                )
            }
            guard Set(rotation).count == rotation.count else {
                throw .invalid("rotate", "rotate names each member once")
            }
            chore.assignee = rotation[0]
        }
        return chore
    }

    /// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`, within ``dueDays``.
    public static func parseDue(_ text: String) throws(DomainError) -> (LocalDate, Int?) {
        let halves = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        guard let day = LocalDate(halves[0]) else {
            throw .invalid("due", "a due day is YYYY-MM-DD, maybe with THH:MM, got \(text)")
        }
        guard dueDays.contains(day) else {
            throw .invalid("due", "a due day is between \(dueDays.lowerBound) and \(dueDays.upperBound), got \(day)")
        }
        guard halves.count == 2 else { return (day, nil) }
        let clock = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
            let minute = Int(clock[1]), (0...23).contains(hour), (0...59).contains(minute)
        else {
            throw .invalid("due", "a due time is HH:MM from 00:00 to 23:59, got \(halves[1])")
        }
        return (day, hour * 60 + minute)
    }

    /// `HH:MM`, or nil for any time of the day.
    public var dueTime: String? {
        dueMinute.map { "\($0 / 600)\($0 / 60 % 10):\($0 % 60 / 10)\($0 % 10)" }
    }

    /// Past due at `now`: its due time has passed, or (with none) its due day is over, on the
    /// household's wall clock.
    public func isOverdue(now: Int64, zone: MemberTimeZone) -> Bool {
        guard let due else { return false }
        guard let dueMinute else { return zone.date(atUnixMilliseconds: now) > due }
        return now >= zone.unixMilliseconds(of: due, hour: dueMinute / 60, minute: dueMinute % 60)
    }
}

/// One occurrence of a chore done or skipped: the household's record of who did what.
public struct TodoCompletion: Hashable, Sendable {
    public var itemID: RecordID
    /// The occurrence's due day.
    public var due: LocalDate
    /// Who did it and gets the credit; nil when it was skipped.
    public var doneBy: UInt64?
    /// Whose turn it was; nil: anyone's.
    public var turnOf: UInt64?
    /// Who marked it, when not `doneBy` (a guardian for a child; the skipper of a skip).
    public var markedBy: UInt64?
    public var atUnixMilliseconds: Int64

    public init(
        itemID: RecordID, due: LocalDate, doneBy: UInt64?, turnOf: UInt64?, markedBy: UInt64?,
        atUnixMilliseconds: Int64
    ) {
        self.itemID = itemID
        self.due = due
        self.doneBy = doneBy
        self.turnOf = turnOf
        self.markedBy = markedBy
        self.atUnixMilliseconds = atUnixMilliseconds
    }

    public var isSkipped: Bool { doneBy == nil }

    /// An occurrence is done (or skipped) once: a replay finds it here.
    public struct Key: Hashable, Sendable {
        let itemID: RecordID
        let due: LocalDate
    }

    public var key: Key { Key(itemID: itemID, due: due) }
}
