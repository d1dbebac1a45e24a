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

    /// The chore reminders due at `now`: a chore due, to the member whose turn it is (passed on
    /// from one excused or removed, as the list reads it), at its due time or (with none) at the
    /// start of their reminder hours, on the household's calendar `zone`; and once more the
    /// next morning when it is still not done. Only to members who asked for chore reminders.
    public static func choresDue(
        in list: TodoList, household: ChoreHousehold, zone: MemberTimeZone, accounts: [UInt64: Account], now: Int64
    ) -> [Reminder] {
        list.items.flatMap { item -> [Reminder] in
            guard !item.isDone, let chore = item.chore, let due = chore.due,
                let turn = TodoList.assignee(of: chore, on: due, in: household), let account = accounts[turn],
                account.reminders.chores
            else { return [] }
            let start = account.reminders.firstMinute
            let dueAt = zone.unixMilliseconds(
                of: due, hour: (chore.dueMinute ?? start) / 60, minute: (chore.dueMinute ?? start) % 60)
            let overdueAt = zone.unixMilliseconds(of: due.adding(days: 1), hour: start / 60, minute: start % 60)
            let minute = now - now % 60_000
            guard minute == dueAt - dueAt % 60_000 || minute == overdueAt - overdueAt % 60_000 else { return [] }
            let overdue = minute != dueAt - dueAt % 60_000
            let text = SharedText.todoText.bounded(item.text)
            let recipients = account.isChild ? account.guardians.compactMap { accounts[$0] } : [account]
            return recipients.map { recipient in
                let whose = recipient.id == account.id ? "" : "\(account.displayName)'s chore: "
                return Reminder(
                    memberID: account.id, username: account.username, displayName: account.displayName,
                    recipient: recipient, kind: "chore", title: overdue ? "A chore is overdue" : "A chore is due",
                    text: whose
                        + (overdue
                            ? "\(text), due \(due), is not done yet"
                            : "\(text) is due"
                                + (chore.dueTime.map { " at \($0)" } ?? " today")),
                    chore: text, date: due)
            }
        }
    }
}
