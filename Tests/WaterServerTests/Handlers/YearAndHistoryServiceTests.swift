import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// GetYear and GetBoardHistory, called in process on a real store (Monday 2026-11-30 12:00 UTC).
@Suite("GetYear and GetBoardHistory")
struct YearAndHistoryServiceTests {
    typealias H = HandlerHarness

    @Test("GetYear: the current year by default, one day a day, the days after today future, bounded years")
    func year() throws {
        let h = try H()
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 500, atUnixMs: H.monday - H.hour),
            as: h.admin
        ).get()
        let year = try h.call(h.tracker.year, WaterV1.GetYearRequest(), as: h.admin).get()
        #expect(year.year == 2026 && year.today == "2026-11-30" && year.days.count == 365)
        let today = try #require(year.days.first { $0.date == "2026-11-30" })
        #expect(today.amountMl == 500 && today.goalMl == 2000 && today.percent == 25 && !today.future)
        #expect(year.days.filter(\.future).map(\.date).first == "2026-12-01")
        #expect(year.days.filter(\.future).count == 31)
        #expect(try h.call(h.tracker.year, WaterV1.GetYearRequest(year: 2024), as: h.admin).get().days.count == 366)
        for bad: UInt32 in [1899, 1999, 2027, 10_000] {
            let error = try #require(h.call(h.tracker.year, WaterV1.GetYearRequest(year: bad), as: h.admin).error)
            #expect(error.code == .invalidArgument && error.violations.map(\.field) == ["year"], "\(bad)")
        }
    }

    @Test("GetYear --for another member reads theirs; an unknown member or habit is not found")
    func otherMember() throws {
        let h = try H()
        let ben = try h.addMember("ben")
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 2000, atUnixMs: H.monday - H.hour),
            as: ben
        ).get()
        let his = try h.call(h.tracker.year, WaterV1.GetYearRequest(forMember: "ben"), as: h.admin).get()
        #expect(his.username == "ben" && his.days.first { $0.date == "2026-11-30" }?.goalMet == true)
        let nobody = h.call(h.tracker.year, WaterV1.GetYearRequest(forMember: "zed"), as: h.admin).error
        #expect(nobody?.code == .notFound)
        let habit = h.call(h.tracker.year, WaterV1.GetYearRequest(habit: "read", forMember: "ben"), as: h.admin).error
        #expect(habit?.code == .notFound && habit?.message.contains("ben has no habit") == true)
    }

    @Test(
        "issue 32: a percent member's rows and year carry the truncated percent and nothing finer; another's habit year is refused alike"
    )
    func percentMemberAndHabits() throws {
        let h = try H()
        let ben = try h.addMember("ben")
        let cat = try h.addMember("cat")
        _ = try h.call(h.tracker.setPrivacy, WaterV1.SetPrivacyRequest(privacy: .percent), as: ben).get()
        // 333 of 2000: 16.65 %, shown 16; 0.1665 x 2000 would give the 333 ml away.
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 333, atUnixMs: H.monday - H.hour),
            as: ben
        ).get()
        let board = try #require(try h.call(h.board.board, WaterV1.GetBoardRequest(), as: cat).get().board)
        let row = try #require(board.rows.first { $0.username == "ben" })
        #expect(row.amountsHidden && row.totalMl == 0)
        #expect(row.averagePercent == 16 && row.averageProgress == 0.16)
        #expect(row.days.map(\.progress) == [0.16] && row.days.map(\.percent) == [16])
        // His own board is whole.
        let own = try #require(try h.call(h.board.board, WaterV1.GetBoardRequest(), as: ben).get().board)
        #expect(own.rows.first { $0.username == "ben" }?.averageProgress == 0.1665)

        let year = try h.call(h.tracker.year, WaterV1.GetYearRequest(forMember: "ben"), as: cat).get()
        let monday = try #require(year.days.first { $0.date == "2026-11-30" })
        #expect(year.amountsHidden && monday.percent == 16 && monday.amountMl == 0 && monday.goalMl == 0)
        #expect(try !h.call(h.tracker.year, WaterV1.GetYearRequest(forMember: "ben"), as: h.admin).get().amountsHidden)

        _ = try h.call(
            h.habits.addHabit, WaterV1.AddHabitRequest(habitID: newID(), name: "read", icon: .book, color: .blue),
            as: ben
        ).get()
        let real = h.call(h.tracker.year, WaterV1.GetYearRequest(habit: "read", forMember: "ben"), as: cat).error
        let guessed = h.call(h.tracker.year, WaterV1.GetYearRequest(habit: "piano", forMember: "ben"), as: cat).error
        #expect(real?.code == .permissionDenied && real == guessed, "the answer tells nothing of which exists")
        let admin = try h.call(h.tracker.year, WaterV1.GetYearRequest(habit: "read", forMember: "ben"), as: h.admin)
            .get()
        #expect(admin.habit == "read")
    }

    @Test("GetBoardHistory: 1 to 52 past weeks, last first, each GetBoard's rows without their days")
    func history() throws {
        let h = try H()
        // Monday 2026-11-23, the week before: 1000 of 2000 on one day of seven.
        _ = try h.call(
            h.tracker.logWater,
            WaterV1.LogWaterRequest(entryID: newID(), amountMl: 1000, atUnixMs: H.monday - 7 * 24 * H.hour),
            as: h.admin
        ).get()
        let history = try h.call(h.board.history, WaterV1.GetBoardHistoryRequest(weeks: 52), as: h.admin).get()
        // The household began in W48 (the admin's first drink): no earlier week is listed.
        #expect(history.boards.map(\.week) == ["2026-W48"])
        var rows = try #require(
            try h.call(h.board.board, WaterV1.GetBoardRequest(week: "2026-W48"), as: h.admin).get().board?.rows)
        #expect(rows.first?.days.count == 7)
        for index in rows.indices { rows[index].days = [] }
        #expect(history.boards[0].rows == rows)
        #expect(rows.first?.averagePercent == 7 && rows.first?.totalMl == 1000)
        for bad: UInt32 in [0, 53, 9999] {
            let error = try #require(
                h.call(h.board.history, WaterV1.GetBoardHistoryRequest(weeks: bad), as: h.admin).error)
            #expect(error.code == .invalidArgument && error.violations.map(\.field) == ["weeks"], "\(bad)")
        }
    }

    @Test("GetHistory with entries too many for one reply is refused from the day totals, before it is built")
    func historyTooLarge() throws {
        let h = try H()
        // 90 drinks a day on each of the 100 days up to Monday: 9000, more than one reply lists.
        let archive = try h.services.store.member(h.admin.id) ?? h.services.store.createMember(h.admin.id)
        for day in 0..<100 {
            try archive.commitAndWait { _ in
                (0..<90).map { n in
                    .water(
                        .logged(
                            WaterEntry(
                                id: RecordID(newID())!, amountMillilitres: 100,
                                unixMilliseconds: H.monday - Int64(day) * 24 * H.hour - Int64(n) * 60_000)))
                }
            }
        }
        let refused = try #require(
            h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: 366, includeEntries: true), as: h.admin).error)
        #expect(refused.code == .resourceExhausted)
        #expect(refused.message.contains("9000 drinks") && refused.message.contains("at most 8000"), "\(refused)")
        // Fewer days, or the days without their drinks, are answered.
        let month = try h.call(
            h.tracker.history, WaterV1.GetHistoryRequest(days: 30, includeEntries: true), as: h.admin
        ).get()
        #expect(month.entries.count == 30 * 90)
        let year = try h.call(h.tracker.history, WaterV1.GetHistoryRequest(days: 366), as: h.admin).get()
        #expect(year.days.count == 366 && year.entries.isEmpty)
    }
}
