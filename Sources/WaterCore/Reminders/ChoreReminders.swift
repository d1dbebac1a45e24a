/// Chore reminders: when a chore is due, and the next morning while it is not done, each held
/// until the recipient's hours, and summed up to one message a recipient a minute.
extension ReminderRule {
    /// The most chores a summary names; the rest are counted.
    static let choresNamed = 5

    /// The chore reminders due at `now`: a chore due, to the member whose turn it is (passed on
    /// from one excused or removed, as the list reads it), at its due time or (with none) at the
    /// start of their reminder hours, on the household's calendar `zone`; and once more the
    /// next morning when it is still not done. Only to members who asked for chore reminders.
    ///
    /// Each recipient hears of a chore within their own hours (``ReminderSettings/hours``, in
    /// their time zone): one due in their quiet hours is held until their hours start. Several
    /// due the same minute for one recipient come as one message (``summary(_:)``), so a list
    /// of hundreds due at once is one notification, not hundreds.
    public static func choresDue(
        in list: TodoList, household: ChoreHousehold, zone: MemberTimeZone, accounts: [UInt64: Account], now: Int64
    ) -> [Reminder] {
        let minute = now - now % 60_000
        var byRecipient: [UInt64: [Reminder]] = [:]
        var order: [UInt64] = []
        for item in list.items {
            guard !item.isDone, let chore = item.chore, let due = chore.due,
                let turn = TodoList.assignee(of: chore, on: due, in: household), let account = accounts[turn],
                account.reminders.chores
            else { continue }
            let start = account.reminders.firstMinute
            let dueAt = zone.unixMilliseconds(
                of: due, hour: (chore.dueMinute ?? start) / 60, minute: (chore.dueMinute ?? start) % 60)
            let overdueAt = zone.unixMilliseconds(of: due.adding(days: 1), hour: start / 60, minute: start % 60)
            let text = SharedText.todoText.bounded(item.text)
            let recipients = account.isChild ? account.guardians.compactMap { accounts[$0] } : [account]
            for recipient in recipients {
                let hours = recipient.reminders.hours
                // Both may fall on one minute (due in the night, held to the morning): overdue.
                let overdue = isMinute(minute, of: held(overdueAt, within: hours, in: recipient.timeZone))
                guard overdue || isMinute(minute, of: held(dueAt, within: hours, in: recipient.timeZone)) else {
                    continue
                }
                let whose = recipient.id == account.id ? "" : "\(account.displayName)'s chore: "
                if byRecipient[recipient.id] == nil { order.append(recipient.id) }
                byRecipient[recipient.id, default: []].append(
                    Reminder(
                        memberID: account.id, username: account.username, displayName: account.displayName,
                        recipient: recipient, kind: "chore", title: overdue ? "A chore is overdue" : "A chore is due",
                        text: whose
                            + (overdue
                                ? "\(text), due \(due), is not done yet"
                                : "\(text) is due" + (chore.dueTime.map { " at \($0)" } ?? " today")),
                        chore: text, date: due))
            }
        }
        return order.compactMap { byRecipient[$0].flatMap(summary) }
    }

    /// One recipient's chore reminders of one minute as one: the one alone, or "3 chores:"
    /// and each one's text (the first ``choresNamed``, then how many more), about the
    /// recipient when they are about several members.
    static func summary(_ reminders: [Reminder]) -> Reminder? {
        guard var first = reminders.first else { return nil }
        guard reminders.count > 1 else { return first }
        let named = reminders.prefix(choresNamed).map(\.text)
        let more = reminders.count - named.count
        let overdue = reminders.count { $0.title == "A chore is overdue" }
        let state = overdue == reminders.count ? "overdue" : overdue > 0 ? "due or overdue" : "due"
        first.title = "\(reminders.count) chores are \(state)"
        first.text =
            "\(reminders.count) chores: " + named.joined(separator: "; ") + (more > 0 ? "; and \(more) more" : "")
        first.chore =
            reminders.prefix(choresNamed).compactMap(\.chore).joined(separator: "; ")
            + (more > 0 ? "; and \(more) more" : "")
        first.date = reminders.map(\.date).min() ?? first.date
        if reminders.contains(where: { $0.memberID != first.memberID }) {
            (first.memberID, first.username, first.displayName) = (
                first.recipient.id, first.recipient.username, first.recipient.displayName
            )
        }
        return first
    }

    /// `at`, or when it falls outside `hours` (in `zone`), the next start of them.
    static func held(_ at: Int64, within hours: WakingHours, in zone: MemberTimeZone) -> Int64 {
        guard hours.progress(at: zone.minuteOfDay(atUnixMilliseconds: at)) == nil else { return at }
        let date = zone.date(atUnixMilliseconds: at)
        let today = zone.unixMilliseconds(of: date, hour: hours.start / 60, minute: hours.start % 60)
        return today > at
            ? today : zone.unixMilliseconds(of: date.adding(days: 1), hour: hours.start / 60, minute: hours.start % 60)
    }

    /// Whether the whole minute `minute` is the one `at` falls in.
    private static func isMinute(_ minute: Int64, of at: Int64) -> Bool {
        minute == at - at % 60_000
    }
}
