/// A reminder due: about whom, to whom, and what it says.
public struct Reminder: Hashable, Sendable {
    /// The member it is about.
    public var memberID: UInt64
    public var username: String
    public var displayName: String
    /// Who receives it: the member, or a child's guardians.
    public var recipient: Account
    /// "water" or "chore".
    public var kind: String
    public var title: String
    public var text: String
    /// What today's goal still wants, in millilitres (water).
    public var toGoMillilitres: Int = 0
    /// The chore's text (a chore's).
    public var chore: String?
    /// The member's day it is for.
    public var date: LocalDate

    public init(
        memberID: UInt64, username: String, displayName: String, recipient: Account, kind: String, title: String,
        text: String, toGoMillilitres: Int = 0, chore: String? = nil, date: LocalDate
    ) {
        (self.memberID, self.username, self.displayName, self.recipient) = (memberID, username, displayName, recipient)
        (self.kind, self.title, self.text, self.toGoMillilitres, self.chore, self.date) = (
            kind, title, text, toGoMillilitres, chore, date
        )
    }
}

/// When a water reminder is due: the one rule the server's scheduler follows, for every channel
/// (and the one `water-client nudge` follows on a desktop, ``WakingHours/behind(_:minute:usualCupMillilitres:)``).
public enum ReminderRule {
    /// The reminders due at `now` for `account`, whose diary (drinks or not: the day totals are
    /// what is read) is `water`, with the household's `accounts` to find a child's guardians. Due
    /// on the whole minutes `everyMinutes` apart from the start of the member's hours, in their
    /// own zone (so across DST changes), while behind today's pace.
    public static func due(
        for account: Account, water: WaterDiary, usualCupMillilitres: Int32, accounts: [UInt64: Account], now: Int64
    ) -> [Reminder] {
        guard let settings = account.reminders.water else { return [] }
        let zone = water.zones.zone(atUnixMilliseconds: now)
        let minute = zone.minuteOfDay(atUnixMilliseconds: now)
        guard let (elapsed, _) = settings.hours.progress(at: minute), elapsed % settings.everyMinutes == 0,
            !isRepeated(minute, at: now, in: zone)
        else { return [] }
        let today = water.today(atUnixMilliseconds: now)
        let day = water.day(today)
        guard let expected = settings.hours.behind(day, minute: minute, usualCupMillilitres: usualCupMillilitres) else {
            return []
        }
        let toGo = Int(day.goalMillilitres - day.amountMillilitres)
        let recipients = account.isChild ? account.guardians.compactMap { accounts[$0] } : [account]
        return recipients.map { recipient in
            let whose = recipient.id == account.id ? "you have" : "\(account.displayName) has"
            return Reminder(
                memberID: account.id, username: account.username, displayName: account.displayName,
                recipient: recipient, kind: "water",
                title: recipient.id == account.id ? "A glass of water?" : "\(account.displayName): a glass of water?",
                text: "\(whose) \(day.amountMillilitres) of \(day.goalMillilitres) ml by \(WakingHours.clock(minute)) "
                    + "(about \(expected) by now): \(toGo) ml to go",
                toGoMillilitres: toGo, date: today)
        }
    }

    /// Whether the wall clock showed `minute` of the same day an hour before `now` too: the hour
    /// repeated when clocks go back, whose second pass reminds nobody again.
    static func isRepeated(_ minute: Int, at now: Int64, in zone: MemberTimeZone) -> Bool {
        let hourBefore = now - 3_600_000
        return zone.minuteOfDay(atUnixMilliseconds: hourBefore) == minute
            && zone.date(atUnixMilliseconds: hourBefore) == zone.date(atUnixMilliseconds: now)
    }
}
