import Testing
import WaterCore

@Suite("TodoList")
struct TodoListTests {
    private func list(_ texts: [String]) throws -> TodoList {
        var list = TodoList()
        for (n, text) in texts.enumerated() {
            list.apply(try #require(try list.validateAdd(id: id(UInt64(n)), text: text, by: 1, now: noon)))
        }
        return list
    }

    @Test("needs more than 3 characters, counted as characters, not bytes")
    func textLength() throws {
        let list = TodoList()
        #expect(throws: DomainError.self) { try list.validateAdd(id: id(1), text: "abc", by: 1, now: noon) }
        #expect(throws: DomainError.self) { try list.validateAdd(id: id(1), text: "  ab  ", by: 1, now: noon) }
        #expect(throws: DomainError.self) { try list.validateAdd(id: id(1), text: "💧💧💧", by: 1, now: noon) }
        #expect(try list.validateAdd(id: id(1), text: "💧💧💧💧", by: 1, now: noon) != nil)
        #expect(try list.validateAdd(id: id(1), text: "Wäsche", by: 1, now: noon) != nil)
        #expect(throws: DomainError.self) {
            try list.validateAdd(id: id(1), text: String(repeating: "x", count: 201), by: 1, now: noon)
        }
    }

    @Test("toggles in place, keeping the id and who completed it")
    func toggle() throws {
        var list = try list(["buy filters", "call grandma"])
        list.apply(try list.validateToggle(id: id(0), by: 2, now: noon))
        #expect(list.items.map(\.id) == [id(0), id(1)])
        #expect(
            list.items[0].isDone && list.items[0].completedBy == 2 && list.items[0].completedAtUnixMilliseconds == noon)
        list.apply(try list.validateToggle(id: id(0), by: 3, now: noon))
        #expect(!list.items[0].isDone && list.items[0].completedBy == nil)
    }

    @Test("deletes and moves, keeping the order of everything else")
    func deleteAndMove() throws {
        var list = try list(["aaaa", "bbbb", "cccc", "dddd", "eeee"])
        list.apply(try list.validateMove(id: id(0), to: 3))
        #expect(list.items.map(\.text) == ["bbbb", "cccc", "dddd", "aaaa", "eeee"])
        list.apply(try list.validateMove(id: id(4), to: 0))
        #expect(list.items.map(\.text) == ["eeee", "bbbb", "cccc", "dddd", "aaaa"])
        list.apply(try list.validateDelete(id: id(2)))
        #expect(list.items.map(\.text) == ["eeee", "bbbb", "dddd", "aaaa"])
        #expect(throws: DomainError.self) { try list.validateMove(id: id(1), to: 4) }
        #expect(throws: DomainError.self) { try list.validateMove(id: id(1), to: -1) }
        #expect(throws: DomainError.self) { try list.validateDelete(id: id(2)) }
    }

    @Test("recognises a replayed add and refuses a reused id")
    func replay() throws {
        let list = try list(["buy filters"])
        #expect(try list.validateAdd(id: id(0), text: "buy filters", by: 1, now: noon) == nil)
        #expect(throws: DomainError.self) { try list.validateAdd(id: id(0), text: "other", by: 1, now: noon) }
    }
}

@Suite("HabitBook")
struct HabitBookTests {
    let today = LocalDate("2026-11-30")!

    @Test("lists new habits first and shows a week's 7-day check list")
    func newestFirstAndWeek() throws {
        var book = HabitBook()
        book.apply(try #require(try book.validateAdd(id: id(1), name: "read", icon: .book, color: .blue, now: noon)))
        book.apply(
            try #require(try book.validateAdd(id: id(2), name: "run", icon: .sportscourt, color: .red, now: noon)))
        #expect(book.habits.map(\.name) == ["run", "read"])
        book.apply(try book.validateCheck(id: id(1), date: today, checked: true, today: today))
        book.apply(try book.validateCheck(id: id(1), date: today.adding(days: -1), checked: true, today: today))
        let lists = book.checkLists(for: ISOWeek(containing: today))
        #expect(lists[1].checked == [true, false, false, false, false, false, false])
        #expect(book.checkLists(for: ISOWeek(containing: today).previous)[1].checked.last == true)
        book.apply(try book.validateCheck(id: id(1), date: today, checked: false, today: today))
        #expect(book.checkIns(in: ISOWeek(containing: today)) == 0)
    }

    @Test("refuses a future day, an empty name, a duplicate name and an unknown habit")
    func badInput() throws {
        var book = HabitBook()
        book.apply(try #require(try book.validateAdd(id: id(1), name: "read", icon: .book, color: .blue, now: noon)))
        #expect(throws: DomainError.self) {
            try book.validateCheck(id: id(1), date: today.adding(days: 1), checked: true, today: today)
        }
        #expect(throws: DomainError.self) {
            try book.validateAdd(id: id(2), name: "  ", icon: .book, color: .blue, now: noon)
        }
        #expect(throws: DomainError.self) {
            try book.validateAdd(id: id(2), name: "Read", icon: .pencil, color: .blue, now: noon)
        }
        #expect(throws: DomainError.self) {
            try book.validateCheck(id: id(9), date: today, checked: true, today: today)
        }
        #expect(throws: DomainError.self) { try book.validateDelete(id: id(9)) }
    }

    @Test("knows the seed's seven icons and nine colours by name")
    func iconsAndColours() {
        #expect(
            HabitIcon.allCases.map(\.description) == [
                "alarm", "book", "pencil", "desktopcomputer", "gamecontroller", "sportscourt", "lightbulb",
            ])
        #expect(HabitColor.allCases.count == 9)
        #expect(HabitColor(name: "Indigo") == .indigo && HabitColor(name: "teal") == nil)
        #expect(HabitColor.blue.rgb == (75, 166, 239) ? true : false)
        #expect(HabitIcon(name: "lightbulb") == .lightbulb)
    }
}
