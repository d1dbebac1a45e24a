import WaterCore
import WaterProtocol
import WaterStore
import WaterSync

/// `water.v1.Reminders`: a member's reminders, kept with their account (the push token as a
/// secret, never in a reply), and when the server last sent one.
struct ReminderService: Service {
    let archives: ArchiveAccess
    let reminded: RemindedDays

    func register(in router: inout Router) {
        router.onLoop(.member, setReminders)
        router.onLoop(.member, getReminders)
    }

    func setReminders(_ request: WaterV1.SetRemindersRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetRemindersResponse
    {
        let member = try archives.actingFor(call, request.forMember).member
        let wanted = request.reminders ?? WaterV1.ReminderSettings()
        return try archives.commitReturning(
            for: call, archives.accounts,
            { book in
                guard let account = book.accounts[member.id] else { return Decision([]) }
                // A partial change (request.fields) is merged into what is kept, here, in the decision.
                let merged = try Self.wire(account.reminders).applying(wanted, fields: request.fields)
                let settings = try Self.settings(merged, keepingTokenOf: account.reminders)
                return Decision(account.reminders == settings ? [] : [.remindersSet(memberID: member.id, settings)])
            },
            result: { book, _ in
                WaterV1.SetRemindersResponse(
                    reminders: Self.wire(book.accounts[member.id]?.reminders ?? ReminderSettings()))
            })
    }

    func getReminders(_ request: WaterV1.GetRemindersRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.GetRemindersResponse
    {
        let member = try archives.actingFor(call, request.forMember).member
        let settings = try archives.read(archives.accounts) { $0.accounts[member.id]?.reminders } ?? ReminderSettings()
        return WaterV1.GetRemindersResponse(
            reminders: Self.wire(settings), lastReminded: reminded.lastDay(of: member.id)?.description ?? "")
    }

    /// The request's settings, checked. A push token left empty for the URL already kept keeps
    /// its token: the token is write-only, so a client changing the hours cannot send it again.
    static func settings(_ wire: WaterV1.ReminderSettings, keepingTokenOf old: ReminderSettings) throws(DomainError)
        -> ReminderSettings
    {
        let token = wire.pushToken.isEmpty && old.push?.url == wire.pushUrl ? old.push?.token ?? "" : wire.pushToken
        return try ReminderSettings(
            every: Int(min(wire.everyMinutes, 100_000)), from: wire.from, to: wire.to, chores: wire.chores,
            mqtt: wire.mqtt, pushURL: wire.pushUrl, pushToken: token)
    }

    /// The settings as replies carry them: the token never.
    static func wire(_ settings: ReminderSettings) -> WaterV1.ReminderSettings {
        WaterV1.ReminderSettings(
            everyMinutes: UInt32(settings.water?.everyMinutes ?? 0),
            from: settings.water.map { WakingHours.clock($0.hours.start) } ?? "",
            to: settings.water.map { WakingHours.clock($0.hours.end) } ?? "", mqtt: settings.mqtt,
            pushUrl: settings.push?.url ?? "", pushTokenSet: !(settings.push?.token.isEmpty ?? true),
            chores: settings.chores)
    }
}

/// The day each member was last reminded of water, by member id: told by the senders, read by
/// GetReminders (so `nudge` stays quiet that day). Memory only: after a restart a desktop nudge
/// may come once more. Owns `days` (behind its lock).
public final class RemindedDays: Sendable {
    private let days = Locked<[UInt64: LocalDate]>([:])

    public init() {}

    public func reminded(_ memberID: UInt64, on date: LocalDate) {
        days.withLock { $0[memberID] = max(date, $0[memberID] ?? date) }
    }

    func lastDay(of memberID: UInt64) -> LocalDate? {
        days.withLock { $0[memberID] }
    }
}
