import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// `water.v1.Todo` and `water.v1.Habits` handlers, called in process on a real store.
@Suite("Todo and habit services")
struct TodoAndHabitServiceTests {
    typealias H = HandlerHarness

    @Test("the shared list: added by, completed by, moved, and removed answers the item it removed")
    func todoList() throws {
        let h = try H()
        let bea = try h.addMember("bea")
        let (milk, bread) = (newID(), newID())
        let added = try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: milk, text: "milk"), as: h.admin).get()
        #expect(added.item?.addedBy == "ann" && added.item?.position == 0)
        _ = try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: bread, text: "bread"), as: bea).get()
        let done = try h.call(h.todo.toggleTodo, WaterV1.ToggleTodoRequest(itemID: milk), as: bea).get()
        #expect(done.item?.done == true && done.item?.completedBy == "bea")
        let moved = try h.call(h.todo.moveTodo, WaterV1.MoveTodoRequest(itemID: bread, position: 0), as: h.admin).get()
        #expect(moved.items.map(\.text) == ["bread", "milk"])
        let far = h.call(h.todo.moveTodo, WaterV1.MoveTodoRequest(itemID: bread, position: 9), as: h.admin).error
        #expect(far?.violations.map(\.field) == ["position"])
        let removed = try h.call(h.todo.deleteTodo, WaterV1.DeleteTodoRequest(itemID: milk), as: bea).get()
        #expect(removed.item?.text == "milk" && removed.item?.done == true)
        let list = try h.call(h.todo.listTodos, WaterV1.ListTodosRequest(), as: bea).get()
        #expect(list.items.map(\.text) == ["bread"])
    }

    @Test("issue 31: a removed member's name stays on the items they added and completed, as on their drinks")
    func removedMemberKeepsTheirName() throws {
        let h = try H()
        let bea = try h.addMember("bea")
        let item = newID()
        _ = try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: item, text: "filters"), as: bea).get()
        _ = try h.call(h.todo.setTodoDone, WaterV1.SetTodoDoneRequest(itemID: item, done: true), as: bea).get()
        _ = try h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "bea"), as: h.admin).get()
        let list = try h.call(h.todo.listTodos, WaterV1.ListTodosRequest(), as: h.admin).get()
        #expect(list.items.map(\.addedBy) == ["bea"] && list.items.map(\.completedBy) == ["bea"], "\(list.items)")
    }

    @Test("SetTodoDone sets, never toggles: two people marking an item done leave it done; undone reopens it")
    func setDone() throws {
        let h = try H()
        let bea = try h.addMember("bea")
        let item = newID()
        _ = try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: item, text: "call grandma"), as: h.admin).get()
        for member in [h.admin, bea] {
            let done = h.call(h.todo.setTodoDone, WaterV1.SetTodoDoneRequest(itemID: item, done: true), as: member)
            #expect(try done.get().item?.done == true)
        }
        #expect(
            try h.call(h.todo.listTodos, WaterV1.ListTodosRequest(), as: bea).get().items.first?.completedBy == "ann")
        for _ in 0..<2 {
            let open = h.call(h.todo.setTodoDone, WaterV1.SetTodoDoneRequest(itemID: item, done: false), as: bea)
            #expect(try open.get().item?.done == false)
        }
    }

    @Test("a replayed id with the same content changes nothing; with other content it is ALREADY_EXISTS, as documented")
    func replays() throws {
        let h = try H()
        let (habit, item) = (newID(), newID())
        let read = WaterV1.AddHabitRequest(habitID: habit, name: "Read", icon: .book, color: .blue)
        _ = try h.call(h.habits.addHabit, read, as: h.admin).get()
        #expect(try h.call(h.habits.addHabit, read, as: h.admin).get().habit?.name == "Read")
        let renamed = WaterV1.AddHabitRequest(habitID: habit, name: "Run", icon: .book, color: .blue)
        let habitConflict = h.call(h.habits.addHabit, renamed, as: h.admin).error
        #expect(habitConflict?.code == .alreadyExists && habitConflict?.violations.map(\.field) == ["habit_id"])
        _ = try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: item, text: "milk please"), as: h.admin).get()
        #expect(
            try h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: item, text: "milk please"), as: h.admin).get()
                .item?.text == "milk please")
        let itemConflict = h.call(h.todo.addTodo, WaterV1.AddTodoRequest(itemID: item, text: "bread"), as: h.admin)
            .error
        #expect(itemConflict?.code == .alreadyExists && itemConflict?.violations.map(\.field) == ["item_id"])
        #expect(try h.call(h.todo.listTodos, WaterV1.ListTodosRequest(), as: h.admin).get().items.count == 1)
    }

    @Test("a habit's week: checked today and on a past day, unchecked, and a day in the future refused")
    func habitWeek() throws {
        let h = try H()
        let id = newID()
        let added = try h.call(
            h.habits.addHabit, WaterV1.AddHabitRequest(habitID: id, name: "Read", icon: .book, color: .blue),
            as: h.admin
        ).get()
        #expect(added.habit?.name == "Read")
        let today = try h.call(h.habits.checkHabit, WaterV1.CheckHabitRequest(habitID: id), as: h.admin).get()
        #expect(today.week?.checked == [true, false, false, false, false, false, false])
        let sunday = try h.call(
            h.habits.checkHabit, WaterV1.CheckHabitRequest(habitID: id, date: "2026-11-29"), as: h.admin
        ).get()
        #expect(sunday.week?.checked == [false, false, false, false, false, false, true])
        _ = try h.call(h.habits.uncheckHabit, WaterV1.UncheckHabitRequest(habitID: id), as: h.admin).get()
        let future = h.call(
            h.habits.checkHabit, WaterV1.CheckHabitRequest(habitID: id, date: "2026-12-01"), as: h.admin
        ).error
        #expect(future?.code == .invalidArgument)
        let week = try h.call(h.habits.listWeek, WaterV1.ListHabitWeekRequest(week: "2026-W48"), as: h.admin).get()
        #expect(week.habits.first?.checked == [false, false, false, false, false, false, true])
        let removed = try h.call(h.habits.deleteHabit, WaterV1.DeleteHabitRequest(habitID: id), as: h.admin).get()
        #expect(removed.habit?.habitID == id)
        #expect(try h.call(h.habits.listWeek, WaterV1.ListHabitWeekRequest(), as: h.admin).get().habits.isEmpty)
    }

    @Test("issue 32: a habit's default week is the household's, the board's, in every member's zone")
    func habitWeekIsTheBoards() throws {
        let h = try H()
        let lea = try h.addMember("lea", timeZone: "America/Los_Angeles")
        // Monday 04:00 UTC: still Sunday evening in Los Angeles, already Monday for the household (UTC).
        let now = H.monday - 8 * H.hour
        let board = try #require(try h.call(h.board.board, WaterV1.GetBoardRequest(), as: lea, now: now).get().board)
        let habits = try h.call(h.habits.listWeek, WaterV1.ListHabitWeekRequest(), as: lea, now: now).get()
        #expect(board.week == "2026-W49" && habits.week == board.week)
    }
}
