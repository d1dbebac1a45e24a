/// The days a member belonged to the household: from the day they joined, less the whole days
/// between a removal and the restore that ended it. A day outside is "not joined yet" or "not a
/// member then" everywhere a member's days are shown (history, week, year, the board), and
/// leaves every average as an excused day does: never 0 % against a goal nobody had.
public struct Membership: Hashable, Sendable {
    /// Why a day before the member joined is not counted.
    public static let notYet = "not joined yet"
    /// Why a day while the member was removed is not counted.
    public static let notThen = "not a member then"

    /// The earlier of the account's creation and the first drink (an imported history counts
    /// from its first day); nil when neither is known.
    public var joined: LocalDate?
    /// The days between each removal and its restore, the days of both excluded (the member
    /// was one for part of each).
    public var removed: [ClosedRange<LocalDate>] = []

    public init(joined: LocalDate?, removed: [ClosedRange<LocalDate>] = []) {
        self.joined = joined
        self.removed = removed
    }

    /// The membership of `account`, in the days of their diary `water`.
    public init(of account: Account, water: WaterDiary) {
        self.init(
            createdAtUnixMilliseconds: account.createdAtUnixMilliseconds, absences: account.absences, water: water)
    }

    /// The membership of an account made at `createdAtUnixMilliseconds` (nil: not known) and away
    /// `absences`, in the days of their diary `water`.
    public init(createdAtUnixMilliseconds: Int64?, absences: [Account.Absence], water: WaterDiary) {
        let created = createdAtUnixMilliseconds.map(water.today(atUnixMilliseconds:))
        switch (created, water.firstDay) {
        case (let created?, let first?): joined = min(created, first)
        case (let created, let first): joined = created ?? first
        }
        removed = absences.compactMap { absence in
            let first = water.today(atUnixMilliseconds: absence.removedAtUnixMilliseconds).adding(days: 1)
            let last = water.today(atUnixMilliseconds: absence.restoredAtUnixMilliseconds).adding(days: -1)
            return first <= last ? first...last : nil
        }
    }

    /// Why `date` is not one of the member's days, or nil when it is.
    public func reason(on date: LocalDate) -> String? {
        if let joined, date < joined { return Self.notYet }
        return removed.contains { $0.contains(date) } ? Self.notThen : nil
    }

    /// `day` as the member's days show it: outside the membership, excused with the reason
    /// (unless the member excused it themselves, which says more).
    public func marked(_ day: WaterDay) -> WaterDay {
        guard !day.isExcused, let reason = reason(on: day.date) else { return day }
        var day = day
        day.excuse = reason
        return day
    }

    /// Whether an excuse is one of these reasons, not the member's own.
    public static func isMembershipReason(_ reason: String) -> Bool {
        reason == notYet || reason == notThen
    }
}
