import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// An Import is held to the archive's caps as a whole: one over any of them adds nothing.
@Suite("Import and the archive's caps")
struct ImportCapsTests {
    typealias H = HandlerHarness

    /// `count` drinks, a minute apart, ending an hour before Monday noon (all on that Monday).
    private static func drinks(_ count: Int) -> [WaterV1.WaterEntry] {
        (0..<count).map {
            WaterV1.WaterEntry(entryID: newID(), amountMl: 250, atUnixMs: H.monday - H.hour - 60_000 * Int64($0))
        }
    }

    private func entries(_ h: H) throws -> Int {
        try h.services.store.member(h.admin.id)!.read { $0.water.entries.count }
    }

    @Test("a day's 100 drinks are imported; one more is refused whole, naming the cap and the field, nothing added")
    func day() throws {
        let h = try H()
        let full = Self.drinks(100)
        let over = WaterV1.ImportRequest(history: WaterV1.MemberHistory(entries: Self.drinks(101)))
        let error = h.call(h.transfer.importHistory, over, as: h.admin).error
        #expect(error?.code == .failedPrecondition)
        #expect(error?.violations.map(\.field) == ["entries.at_unix_ms"])
        #expect(
            error?.message
                == "at most 100 drinks a day: 2026-11-30 would have 101; nothing of this import was added")
        #expect(try entries(h) == 0)

        let first = try h.call(
            h.transfer.importHistory, WaterV1.ImportRequest(history: WaterV1.MemberHistory(entries: full)), as: h.admin
        ).get()
        #expect(first.entriesAdded == 100)
        // The same file again is no new drink (the day is full, and nothing is refused) ...
        let again = try h.call(
            h.transfer.importHistory, WaterV1.ImportRequest(history: WaterV1.MemberHistory(entries: full)), as: h.admin
        ).get()
        #expect(again.entriesAdded == 0)
        // ... but one new drink on that day, with 50 on the day before, is refused whole.
        let yesterday = Self.drinks(50).map {
            var entry = $0
            entry.atUnixMs -= 24 * H.hour
            return entry
        }
        let mixed = WaterV1.MemberHistory(entries: yesterday + full + Self.drinks(1))
        let refused = h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: mixed), as: h.admin).error
        #expect(refused?.message.hasPrefix("at most 100 drinks a day: 2026-11-30 has 100 already") == true)
        #expect(try entries(h) == 100)
    }

    @Test("an import of more habits than a member keeps is refused whole")
    func habits() throws {
        let h = try H()
        let habits = (0..<33).map { n in
            WaterV1.HabitHistory(
                habit: WaterV1.Habit(
                    habitID: newID(), name: "habit \(n)", icon: .book, color: .blue,
                    createdAtUnixMs: H.monday - Int64(33 - n) * H.hour),
                checkedDates: ["2026-11-29"])
        }
        let history = WaterV1.MemberHistory(entries: Self.drinks(3), habits: habits)
        let error = h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).error
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message == "at most 32 habits a member: you have 32 already; delete one first")
        #expect(try entries(h) == 0)
        #expect(try h.services.store.member(h.admin.id)!.read { $0.habits.habits.count } == 0)
    }

    @Test("an import's goals, check-ins and excused days are from 2000-01-01 on")
    func from2000() throws {
        let h = try H()
        let habit = WaterV1.Habit(habitID: newID(), name: "read", icon: .book, color: .blue, createdAtUnixMs: H.monday)
        for (history, field) in [
            (WaterV1.MemberHistory(goals: [WaterV1.DailyGoal(date: "1999-12-31", goalMl: 2500)]), "goals.date"),
            (WaterV1.MemberHistory(goals: [WaterV1.DailyGoal(date: "2026-12-02", goalMl: 2500)]), "goals.date"),
            (
                WaterV1.MemberHistory(habits: [WaterV1.HabitHistory(habit: habit, checkedDates: ["0001-01-01"])]),
                "habits.checked_dates"
            ),
            (WaterV1.MemberHistory(excused: [WaterV1.ExcusedDate(date: "1999-12-31", reason: "sick")]), "excused.days"),
        ] {
            let error = h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).error
            #expect(error?.violations.map(\.field) == [field], "\(error?.message ?? "accepted")")
        }
        #expect(try h.services.store.member(h.admin.id)!.read { $0.habits.habits.count } == 0)
    }
}
