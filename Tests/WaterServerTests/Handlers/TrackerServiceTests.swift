import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// `water.v1.Tracker`'s handlers, called in process on a real store.
@Suite("Tracker service")
struct TrackerServiceTests {
    typealias H = HandlerHarness

    @Test("LogWater answers the entry and its named day; the same id again is a duplicate that stores nothing")
    func logAndReplay() throws {
        let h = try H()
        let id = newID()
        let request = WaterV1.LogWaterRequest(entryID: id, amountMl: 250, atUnixMs: H.monday - 2 * H.hour)
        let first = try h.call(h.tracker.logWater, request, as: h.admin).get()
        #expect(first.entry?.entryID == id && first.entry?.amountMl == 250 && first.entry?.date == "2026-11-30")
        #expect(first.day?.date == "2026-11-30" && first.day?.amountMl == 250 && !first.duplicate)

        let again = try h.call(h.tracker.logWater, request, as: h.admin).get()
        #expect(again.duplicate && again.day?.amountMl == 250)

        let other = WaterV1.LogWaterRequest(entryID: id, amountMl: 300, atUnixMs: H.monday - 2 * H.hour)
        let conflict = h.call(h.tracker.logWater, other, as: h.admin).error
        #expect(conflict?.code == .alreadyExists && conflict?.violations.map(\.field) == ["entry_id"])
        let today = try h.call(h.tracker.today, WaterV1.GetTodayRequest(), as: h.admin).get()
        #expect(today.entries.map(\.entryID) == [id])
    }

    @Test(
        "a refused log names the field and writes nothing",
        arguments: [
            (WaterV1.LogWaterRequest(entryID: "nope", amountMl: 250), "entry_id"),
            (WaterV1.LogWaterRequest(entryID: newID(), amountMl: 2001), "amount_ml"),
            (WaterV1.LogWaterRequest(entryID: newID(), amountMl: 250, atUnixMs: H.monday + H.hour), "at_unix_ms"),
        ])
    func refusedLog(request: WaterV1.LogWaterRequest, field: String) throws {
        let h = try H()
        let error = try #require(h.call(h.tracker.logWater, request, as: h.admin).error)
        #expect(error.code == .invalidArgument)
        #expect(error.violations.map(\.field) == [field])
        let entries = try h.services.store.member(h.admin.id)!.read { $0.water.entries.count }
        #expect(entries == 0)
    }

    @Test("EditWater that moves a drink across midnight answers the day it left and the day it joined")
    func editAcrossMidnight() throws {
        let h = try H()
        let id = newID()
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: id, amountMl: 300, atUnixMs: H.monday - 11 * H.hour),
            as: h.admin
        ).get()
        let edited = try h.call(
            h.tracker.editWater, WaterV1.EditWaterRequest(entryID: id, atUnixMs: H.monday - 13 * H.hour), as: h.admin
        ).get()
        #expect(edited.days.map(\.date) == ["2026-11-30", "2026-11-29"])
        #expect(edited.days.map(\.amountMl) == [0, 300])
        #expect(edited.entry?.date == "2026-11-29")
    }

    @Test("DeleteWater and UndoWater answer the entry removed and its day after; undo with nothing left is NOT_FOUND")
    func deleteAndUndo() throws {
        let h = try H()
        let (first, second) = (newID(), newID())
        for (id, hours) in [(first, 3), (second, 1)] {
            _ = try h.call(
                h.tracker.logWater,
                WaterV1.LogWaterRequest(entryID: id, amountMl: 200, atUnixMs: H.monday - Int64(hours) * H.hour),
                as: h.admin
            ).get()
        }
        let deleted = try h.call(h.tracker.deleteWater, WaterV1.DeleteWaterRequest(entryID: first), as: h.admin).get()
        #expect(deleted.entry?.entryID == first && deleted.day?.amountMl == 200)
        let undone = try h.call(h.tracker.undoWater, WaterV1.UndoWaterRequest(), as: h.admin).get()
        #expect(undone.entry?.entryID == second && undone.day?.amountMl == 0)
        #expect(h.call(h.tracker.undoWater, WaterV1.UndoWaterRequest(), as: h.admin).error?.code == .notFound)
        let gone = h.call(h.tracker.deleteWater, WaterV1.DeleteWaterRequest(entryID: first), as: h.admin).error
        #expect(gone?.code == .notFound)
    }

    @Test("a member's days follow their own zone: 03:00 UTC is still the evening before in New York")
    func memberZone() throws {
        let h = try H()
        let bea = try h.addMember("bea", timeZone: "America/New_York")
        let logged = try h.call(
            h.tracker.logWater,
            WaterV1.LogWaterRequest(entryID: newID(), amountMl: 250, atUnixMs: H.monday - 9 * H.hour),
            as: bea
        ).get()
        #expect(logged.day?.date == "2026-11-29")
        let settings = try h.call(h.tracker.settings, WaterV1.GetSettingsRequest(), as: bea).get()
        #expect(settings.settings?.timeZone == "America/New_York")
    }

    @Test(
        "SetTimeZone moves a member's days from now on (a drink keeps its moment and its day) and their account's zone; an unknown zone is refused"
    )
    func setTimeZone() throws {
        let h = try H()
        let id = newID()
        let logged = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: id, amountMl: 250, atUnixMs: H.monday - 9 * H.hour),
            as: h.admin
        ).get()
        #expect(logged.entry?.date == "2026-11-30")
        let moved = try h.call(
            h.tracker.setTimeZone, WaterV1.SetTimeZoneRequest(timeZone: "America/New_York"), as: h.admin
        ).get()
        #expect(moved.settings?.timeZone == "America/New_York")
        let history = try h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: 2), as: h.admin).get()
        #expect(history.days.map(\.date) == ["2026-11-29", "2026-11-30"])
        // 03:00 UTC is the evening before in New York, but she drank it in UTC, before the move:
        // it stays on Monday (a move changes today and later days only, issue 32 item 7).
        #expect(history.days.map(\.amountMl) == [0, 250])
        let evening = H.monday + 14 * H.hour  // 02:00 UTC Tuesday, 21:00 Monday in New York
        let later = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 300, atUnixMs: evening),
            as: h.admin, now: evening
        ).get()
        #expect(later.entry?.date == "2026-11-30", "after the move, New York's days")
        #expect(
            try h.services.store.accounts.read { $0.accounts[h.admin.id]?.timeZone.identifier } == "America/New_York")
        let refused = h.call(h.tracker.setTimeZone, WaterV1.SetTimeZoneRequest(timeZone: "Mars/Olympus"), as: h.admin)
        #expect(refused.error?.violations.map(\.field) == ["time_zone"])
    }

    @Test("GetHistory answers the days asked for, ending today, and refuses 0 and 367")
    func history() throws {
        let h = try H()
        let week = try h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: 7), as: h.admin).get()
        #expect(week.days.map(\.date).first == "2026-11-24" && week.days.map(\.date).last == "2026-11-30")
        for days: UInt32 in [0, 367] {
            let error = h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: days), as: h.admin).error
            #expect(error?.code == .invalidArgument && error?.violations.map(\.field) == ["days"])
        }
    }

    @Test("SetGoal changes today's goal and answers today against it; an impossible goal is refused")
    func goal() throws {
        let h = try H()
        let set = try h.call(h.tracker.setGoal, WaterV1.SetGoalRequest(dailyGoalMl: 2500), as: h.admin).get()
        #expect(set.settings?.dailyGoalMl == 2500 && set.today?.goalMl == 2500)
        let error = h.call(h.tracker.setGoal, WaterV1.SetGoalRequest(dailyGoalMl: 20), as: h.admin).error
        #expect(error?.code == .invalidArgument && error?.violations.map(\.field) == ["daily_goal_ml"])
    }
}
