import Testing
import WaterCore

@Suite("Chores: recurrence, rotation, history")
struct ChoreTests {
    private func day(_ text: String) -> LocalDate { LocalDate(text)! }

    private func household(_ today: String, excused: [UInt64: [String]] = [:], members: Set<UInt64> = [1, 2, 3])
        -> ChoreHousehold
    {
        ChoreHousehold(
            today: day(today), now: Int64(day(today).daysSinceEpoch) * 86_400_000 + 43_200_000, members: members,
            excused: excused.mapValues { Set($0.map(day)) })
    }

    @Test("the next occurrence is counted from the due day: late stays on the grid, early takes the next")
    func nextOccurrence() throws {
        let monday = day("2026-12-07")
        let weekly = Recurrence.weeks(1)
        #expect(weekly.next(after: monday, notBefore: day("2026-12-08")) == day("2026-12-14"))  // a day late
        #expect(weekly.next(after: monday, notBefore: day("2026-12-06")) == day("2026-12-14"))  // a day early
        #expect(weekly.next(after: monday, notBefore: day("2026-12-30")) == day("2027-01-04"))  // weeks late: a Monday
        #expect(Recurrence.days(1).next(after: monday, notBefore: day("2026-12-08")) == day("2026-12-08"))
        #expect(Recurrence.days(3).next(after: monday, notBefore: day("2026-12-11")) == day("2026-12-13"))
        let monThu = try Recurrence.parse("mon,thu", due: monday)
        #expect(monThu.next(after: monday, notBefore: monday) == day("2026-12-10"))
        #expect(monThu.next(after: day("2026-12-10"), notBefore: day("2026-12-10")) == day("2026-12-14"))
        #expect(monThu.description == "mon,thu")
    }

    @Test("a monthly chore keeps its day: the 31st is the last day of shorter months and the 31st again")
    func monthEnd() throws {
        let monthly = try Recurrence.parse("month", due: day("2027-01-31"))
        var due = day("2027-01-31")
        var seen: [String] = []
        for _ in 0..<4 {
            due = monthly.next(after: due, notBefore: due)
            seen.append(due.description)
        }
        #expect(seen == ["2027-02-28", "2027-03-31", "2027-04-30", "2027-05-31"])
        #expect(
            try Recurrence.parse("2 months", due: day("2028-12-31")).next(
                after: day("2028-12-31"), notBefore: day("2028-12-31")) == day("2029-02-28"))
    }

    @Test("every new field out of range is refused, naming it")
    func bounds() {
        func field(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                return (error as? DomainError)?.field ?? "not a DomainError"
            }
        }
        let today = day("2026-12-03")
        #expect(field { _ = try Recurrence.parse("366 days", due: today) } == "every")
        #expect(field { _ = try Recurrence.parse("53 weeks", due: today) } == "every")
        #expect(field { _ = try Recurrence.parse("13 months", due: today) } == "every")
        #expect(field { _ = try Recurrence.parse("0 days", due: today) } == "every")
        #expect(field { _ = try Recurrence.parse("mon,mon", due: today) } == "every")
        #expect(field { _ = try Recurrence.parse("fortnightly", due: today) } == "every")
        #expect(field { _ = try Chore.parseDue("2101-01-01") } == "due")
        #expect(field { _ = try Chore.parseDue("1999-12-31") } == "due")
        #expect(field { _ = try Chore.parseDue("2026-12-07T24:00") } == "due")
        #expect(field { _ = try Chore.parseDue("next week") } == "due")
        let nine = Array(UInt64(1)...9)
        #expect(
            field { _ = try Chore.validated(due: "", every: "week", assignee: nil, rotation: nine, today: today) }
                == "rotate")
        #expect(
            field { _ = try Chore.validated(due: "", every: "week", assignee: nil, rotation: [1], today: today) }
                == "rotate")
        #expect(
            field { _ = try Chore.validated(due: "", every: "week", assignee: nil, rotation: [1, 1], today: today) }
                == "rotate")
        #expect(
            field { _ = try Chore.validated(due: "", every: "", assignee: nil, rotation: [1, 2], today: today) }
                == "rotate")
        #expect(
            field { _ = try Chore.validated(due: "", every: "week", assignee: 1, rotation: [1, 2], today: today) }
                == "rotate")
        var list = TodoList()
        for n in 0..<TodoList.maximumRecurringItems {
            let chore = try? Chore.validated(due: "", every: "day", assignee: nil, rotation: [], today: today)
            list.apply(try! list.validateAdd(id: id(UInt64(n)), text: "chore \(n)", chore: chore, by: 1, now: noon)!)
        }
        let one = try? Chore.validated(due: "", every: "day", assignee: nil, rotation: [], today: today)
        #expect(
            field { _ = try list.validateAdd(id: id(999), text: "one more", chore: one, by: 1, now: noon) } == "every")
        // A one-off item still fits.
        #expect(field { _ = try list.validateAdd(id: id(999), text: "one more", by: 1, now: noon) } == nil)
    }

    @Test("a rotation passes an excused member's turn on, credits who did it, and goes on after whose turn it was")
    func rotation() throws {
        var list = TodoList()
        let chore = try Chore.validated(
            due: "2026-12-07", every: "week", assignee: nil, rotation: [1, 2, 3], today: day("2026-12-03"))
        list.apply(try #require(try list.validateAdd(id: id(1), text: "bins out", chore: chore, by: 1, now: noon)))
        // Week 1: member 1's turn, done by member 2, who gets the credit; member 2 is next.
        let first = try #require(
            try list.validateDone(
                id: id(1), occurrence: day("2026-12-07"), doneBy: 2, markedBy: nil, household: household("2026-12-07")))
        list.apply(first)
        #expect(list.history.last?.turnOf == 1 && list.history.last?.doneBy == 2)
        #expect(list.item(id(1))?.chore?.due == day("2026-12-14") && list.item(id(1))?.chore?.assignee == 2)
        // A replay of the same done changes nothing, and would count once.
        #expect(
            try list.validateDone(
                id: id(1), occurrence: day("2026-12-07"), doneBy: 2, markedBy: nil, household: household("2026-12-08"))
                == nil)
        list.apply(first)
        #expect(list.history.count == 1)
        // Week 2: member 2 is sick that day: member 3's turn; then member 1's.
        let sick = household("2026-12-14", excused: [2: ["2026-12-14"]])
        #expect(TodoList.assignee(of: list.item(id(1))!.chore!, on: day("2026-12-14"), in: sick) == 3)
        list.apply(
            try #require(
                try list.validateDone(id: id(1), occurrence: nil, doneBy: 3, markedBy: nil, household: sick)))
        #expect(list.history.last?.turnOf == 3 && list.item(id(1))?.chore?.assignee == 1)
        // Member 1 removed: out of the rotation, and back when restored.
        let without1 = household("2026-12-21", members: [2, 3])
        #expect(TodoList.assignee(of: list.item(id(1))!.chore!, on: day("2026-12-21"), in: without1) == 2)
        #expect(
            TodoList.assignee(of: list.item(id(1))!.chore!, on: day("2026-12-21"), in: household("2026-12-21")) == 1)
        // Reopened: due again, the turn back, out of the history; a second undone changes nothing.
        let reopen = try #require(try list.validateReopen(id: id(1), by: 1, now: noon))
        list.apply(reopen)
        #expect(list.item(id(1))?.chore?.due == day("2026-12-14") && list.history.count == 1)
        #expect(try list.validateReopen(id: id(1), by: 1, now: noon) == nil)
        // Skipped: nobody did it, the turn stays.
        list.apply(try #require(try list.validateSkip(id: id(1), occurrence: nil, by: 1, household: sick)))
        #expect(list.history.last?.isSkipped == true && list.item(id(1))?.chore?.assignee == 3)
        #expect(list.item(id(1))?.chore?.due == day("2026-12-21"))
    }

    @Test("the history is kept for historyDays and no longer")
    func historyKept() throws {
        var list = TodoList()
        let chore = try Chore.validated(
            due: "2025-01-01", every: "day", assignee: nil, rotation: [], today: day("2025-01-01"))
        list.apply(try #require(try list.validateAdd(id: id(1), text: "feed the cat", chore: chore, by: 1, now: noon)))
        var today = day("2025-01-01")
        for _ in 0..<(TodoList.historyDays + 30) {
            list.apply(
                try #require(
                    try list.validateDone(
                        id: id(1), occurrence: nil, doneBy: 1, markedBy: nil, household: household(today.description))))
            today = today.adding(days: 1)
        }
        #expect(list.history.count == TodoList.historyDays + 1)
    }

    @Test("an import adds what is missing, in time order, and nothing twice or older than the history keeps")
    func importHistory() throws {
        var list = TodoList()
        let day = 86_400_000 as Int64
        let now = 1_800_000_000_000 as Int64
        func done(_ n: Int, at: Int64) -> TodoCompletion {
            TodoCompletion(
                itemID: id(1), due: LocalDate(daysSinceEpoch: 20_000 + n), doneBy: 2, turnOf: 2, markedBy: nil,
                atUnixMilliseconds: at)
        }
        let completions = [done(2, at: now - day), done(1, at: now - 2 * day), done(0, at: now - 500 * day)]
        let mutations = try list.validateImport(items: [], completions: completions + [completions[0]], now: now)
        #expect(mutations.count == 2)
        for mutation in mutations { list.apply(mutation) }
        #expect(list.history.map(\.due.daysSinceEpoch) == [20_001, 20_002])
        #expect(try list.validateImport(items: [], completions: completions, now: now).isEmpty)
    }

    @Test("a percent or hidden member's days away pass no turn on: a passed turn would tell the household")
    func privateExcusesKeepTheTurn() throws {
        let day = try #require(LocalDate("2026-12-10"))
        let chore = Chore(
            due: day, recurrence: try Recurrence.parse("week", due: day), assignee: 3, rotation: [3, 2, 1])
        for (privacy, turn) in [(Privacy.full, UInt64(2)), (.percent, 3), (.hidden, 3)] {
            let excused = ChoreHousehold.turnPassing([day], privacy: privacy)
            let household = ChoreHousehold(today: day, now: 0, members: [1, 2, 3], excused: [3: excused])
            #expect(TodoList.assignee(of: chore, on: day, in: household) == turn, "\(privacy)")
        }
    }
}
