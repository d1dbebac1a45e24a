import Foundation
import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// Issue 32 item 9: days before a member joined and days they were removed are "not joined yet"
/// and "not a member then" in history, year and the board, never 0 % against a default goal.
@Suite("Days a member did not belong to the household")
struct MembershipDaysTests {
    typealias H = HandlerHarness

    @Test("kim joins Monday, is removed Tuesday and restored Friday: her history, year and board say so")
    func removedAndRestored() throws {
        let h = try H()
        _ = try h.addMember("kim")  // Monday 2026-11-30 12:00 UTC
        let kim = try h.login("kim")
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 2000, atUnixMs: H.monday),
            by: kim
        ).get()
        let tuesday = H.monday + 24 * H.hour
        let friday = H.monday + 4 * 24 * H.hour
        _ = try h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "kim"), as: h.admin, now: tuesday)
            .get()
        _ = try h.call(
            h.accounts.restoreMember, WaterV1.RestoreMemberRequest(username: "kim"), as: h.admin, now: friday
        )
        .get()
        let back = try h.login("kim", now: friday)
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 1000, atUnixMs: friday),
            by: back, now: friday
        ).get()

        let history = try h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: 7), by: back, now: friday).get()
        #expect(
            history.days.map { "\($0.date.suffix(2)) \($0.excused ? $0.excusedReason : "\($0.percent) %")" } == [
                "28 not joined yet", "29 not joined yet", "30 100 %", "01 0 %", "02 not a member then",
                "03 not a member then", "04 50 %",
            ])

        let year = try h.call(h.tracker.year, WaterV1.GetYearRequest(), by: back, now: friday).get()
        let away = year.days.filter(\.notAMember).map(\.date)
        #expect(away.contains("2026-11-29") && away.contains("2026-12-02") && away.contains("2026-12-03"))
        #expect(!away.contains("2026-11-30") && !away.contains("2026-12-01") && !away.contains("2026-12-04"))

        // On the board the two days away leave her average: (100 + 0 + 50) / 3 = 50 %.
        let board = try h.call(h.board.board, WaterV1.GetBoardRequest(), as: h.admin, now: friday).get().board
        let row = try #require(board?.rows.first { $0.username == "kim" })
        #expect(row.averagePercent == 50 && row.excusedDays == 2)
        #expect(row.days.filter(\.excused).map(\.excusedReason) == ["not a member then", "not a member then"])
        // Last week she was not a member at all: she is not on it.
        let lastWeek = try h.call(h.board.board, WaterV1.GetBoardRequest(week: "2026-W48"), as: h.admin, now: friday)
            .get().board
        #expect(lastWeek?.rows.contains { $0.username == "kim" } == false)
    }
}
