import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// Issue 34: SetReminders and GetReminders: the token is write-only, kept when the same URL
/// comes back without one; a guardian sets a child's; out-of-range fields are named.
@Suite("Reminder service")
struct ReminderServiceTests {
    typealias H = HandlerHarness

    @Test("the token never comes back, and is kept when a client changes the hours without it")
    func tokenWriteOnly() throws {
        let h = try H()
        let wanted = WaterV1.ReminderSettings(
            everyMinutes: 60, from: "08:00", to: "22:00", pushUrl: "https://ntfy.example/w", pushToken: "tk_1")
        let set = try h.call(
            h.services.api.reminders.setReminders, WaterV1.SetRemindersRequest(reminders: wanted), as: h.admin
        )
        .get()
        #expect(set.reminders?.pushToken == "" && set.reminders?.pushTokenSet == true)
        var later = try #require(set.reminders)
        later.everyMinutes = 120
        _ = try h.call(
            h.services.api.reminders.setReminders, WaterV1.SetRemindersRequest(reminders: later), as: h.admin
        ).get()
        let kept = try h.services.store.accounts.read { $0.accounts[h.admin.id]?.reminders }
        #expect(kept?.push?.token == "tk_1" && kept?.water?.everyMinutes == 120)
        let got = try h.call(h.services.api.reminders.getReminders, WaterV1.GetRemindersRequest(), as: h.admin).get()
        #expect(got.reminders?.pushToken == "" && got.reminders?.everyMinutes == 120 && got.lastReminded == "")
    }

    @Test(
        "a partial change (fields) changes only what it names: the push URL and token stay; a new URL drops the old token; hours alone turn water on; an unknown name is refused"
    )
    func partialChanges() throws {
        let h = try H()
        func set(_ settings: WaterV1.ReminderSettings, _ fields: [String]) -> Result<
            WaterV1.SetRemindersResponse, WaterError
        > {
            h.call(
                h.services.api.reminders.setReminders,
                WaterV1.SetRemindersRequest(reminders: settings, fields: fields), as: h.admin)
        }
        let whole = WaterV1.ReminderSettings(
            everyMinutes: 60, from: "08:00", to: "22:00", pushUrl: "https://ntfy.example/w", pushToken: "tk_1")
        _ = try set(whole, []).get()
        // What a client away from the server queues: every field but mqtt left at its zero value.
        let mqtt = try set(WaterV1.ReminderSettings(mqtt: true), ["mqtt"]).get().reminders
        #expect(
            mqtt
                == WaterV1.ReminderSettings(
                    everyMinutes: 60, from: "08:00", to: "22:00", mqtt: true, pushUrl: "https://ntfy.example/w",
                    pushTokenSet: true))
        func kept() throws -> ReminderSettings? {
            try h.services.store.accounts.read { $0.accounts[h.admin.id]?.reminders }
        }
        #expect(try kept()?.push?.token == "tk_1")
        _ = try set(WaterV1.ReminderSettings(), ["every_minutes", "chores"]).get()
        #expect(try kept()?.water == nil && kept()?.push?.token == "tk_1" && kept()?.mqtt == true)
        let hours = try set(WaterV1.ReminderSettings(from: "07:00", to: "21:00"), ["from", "to"]).get().reminders
        #expect(hours?.everyMinutes == 60 && hours?.from == "07:00" && hours?.to == "21:00")
        _ = try set(WaterV1.ReminderSettings(pushUrl: "https://other.example/w"), ["push_url"]).get()
        #expect(try kept()?.push == ReminderSettings.PushTarget(url: "https://other.example/w", token: ""))
        let unknown = set(WaterV1.ReminderSettings(), ["mqtt", "push_token_set"])
        #expect(unknown.error?.violations.map(\.field) == ["fields"])
        let bad = set(WaterV1.ReminderSettings(everyMinutes: 5), ["every_minutes"])
        #expect(bad.error?.violations.map(\.field) == ["every_minutes"])
    }

    @Test("a field out of range is named; another member's reminders only as their guardian or an admin")
    func refusals() throws {
        let h = try H()
        let bad = h.call(
            h.services.api.reminders.setReminders,
            WaterV1.SetRemindersRequest(
                reminders: WaterV1.ReminderSettings(everyMinutes: 5, from: "08:00", to: "22:00")),
            as: h.admin)
        #expect(bad.error?.violations.map(\.field) == ["every_minutes"])
        let ben = try h.addMember("ben")
        let other = h.call(
            h.services.api.reminders.getReminders, WaterV1.GetRemindersRequest(forMember: "mum"), as: ben)
        #expect(other.error?.code == .permissionDenied)
    }
}
