import Testing
import WaterCore

/// Issue 18, item 6: text one member writes and the others print.
@Suite("SharedText")
struct SharedTextTests {
    @Test(
        "refuses every control character, C0 (newline and tab too), DEL and C1, naming where it is",
        arguments: [
            "\u{0}", "\u{7}", "\t", "\n", "\r", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "\u{9F}",
        ] as [Unicode.Scalar])
    func controlCharacters(scalar: Unicode.Scalar) {
        for rule in [SharedText.todoText, .habitName, .displayName] {
            let error = #expect(throws: DomainError.self) { try rule.checked("buy \(scalar)filters") }
            #expect(error?.field == rule.field && error?.message.contains("character 5 is U+") == true)
        }
    }

    @Test("takes what people write: accents, other scripts, emoji sequences, and trims the spaces around it")
    func ordinaryText() throws {
        #expect(try SharedText.todoText.checked("  Wäsche aufhängen \n") == "Wäsche aufhängen")
        #expect(try SharedText.todoText.checked("買い物リスト") == "買い物リスト")
        // A family is one character of 25 bytes, joined by U+200D (a format character, not a control).
        #expect(try SharedText.habitName.checked("👨‍👩‍👧‍👦 time") == "👨‍👩‍👧‍👦 time")
        // 200 characters of a three-byte script fit the 1024 bytes.
        #expect(try SharedText.todoText.checked(String(repeating: "水", count: 200)).count == 200)
    }

    @Test("counts bytes as well as characters: 4 characters of 600 KB are refused before any per-character work")
    func bytes() {
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 75_000), count: 4)
        #expect(heavy.count == 4 && heavy.utf8.count == 600_004)
        let error = #expect(throws: DomainError.self) { try SharedText.todoText.checked(heavy) }
        #expect(
            error?.field == "text" && error?.message == "an item's text must be at most 1024 bytes of UTF-8, got 600004"
        )
        #expect(throws: DomainError.self) { try SharedText.habitName.checked(String(repeating: "é", count: 129)) }
        #expect((try? SharedText.habitName.checked(String(repeating: "é", count: 64))) != nil)
    }

    @Test("the limits are the ones proto/README.md and deploy/README.md state")
    func documentedLimits() {
        #expect(SharedText.todoText.characters == 4...200 && SharedText.todoText.maximumBytes == 1024)
        #expect(SharedText.habitName.characters == 1...64 && SharedText.habitName.maximumBytes == 256)
        #expect(SharedText.displayName.characters == 1...64 && SharedText.displayName.maximumBytes == 256)
        #expect(TodoList.maximumItems == 500)
    }

    @Test("a stored text over the bytes is cut at a character to fit, ending in an ellipsis; one within is kept")
    func bounded() {
        #expect(SharedText.todoText.bounded("buy filters") == "buy filters")
        let long = String(repeating: "水", count: 400)
        let cut = SharedText.todoText.bounded(long)
        #expect(cut.utf8.count <= 1024 && cut.hasSuffix("…") && long.hasPrefix(cut.dropLast()))
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 75_000), count: 4)
        #expect(SharedText.todoText.bounded(heavy) == "…")
    }
}

@Suite("Shared text in the list, the habits and the accounts")
struct SharedTextRulesTests {
    @Test("the list refuses an item with an escape sequence or a newline, and a 501st item; one gone makes room")
    func todoList() throws {
        var list = TodoList()
        #expect(throws: DomainError.self) {
            try list.validateAdd(id: id(1), text: "\u{1B}]52;c;ZXZpbA==\u{7}milk", by: 1, now: noon)
        }
        #expect(throws: DomainError.self) {
            try list.validateAdd(id: id(1), text: "milk\n 2. [x] fake", by: 1, now: noon)
        }
        for n in 0..<TodoList.maximumItems {
            list.apply(try #require(try list.validateAdd(id: id(UInt64(n)), text: "item \(n)", by: 1, now: noon)))
        }
        let full = #expect(throws: DomainError.self) {
            try list.validateAdd(id: id(9999), text: "one more", by: 1, now: noon)
        }
        #expect(full?.kind == .full)
        // A replay of an item already there is still recognised on a full list.
        #expect(try list.validateAdd(id: id(3), text: "item 3", by: 1, now: noon) == nil)
        list.apply(try list.validateDelete(id: id(0)))
        #expect(try list.validateAdd(id: id(9999), text: "one more", by: 1, now: noon) != nil)
    }

    @Test("a list or a habit an older server stored with control characters or 600 KB still loads (is valid)")
    func olderDataLoads() throws {
        var list = TodoList()
        list.apply(.added(TodoItem(id: id(1), text: "\u{1B}[2Jmilk", addedBy: 1, addedAtUnixMilliseconds: noon)))
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 75_000), count: 4)
        list.apply(.added(TodoItem(id: id(2), text: heavy, addedBy: 1, addedAtUnixMilliseconds: noon)))
        #expect(list.isValid)
        var book = HabitBook()
        book.apply(
            .added(Habit(id: id(3), name: "read\n", icon: .book, color: .blue, createdAtUnixMilliseconds: noon)))
        #expect(book.isValid)
    }

    @Test("a habit's name and a display name keep the same rule")
    func habitsAndAccounts() throws {
        let book = HabitBook()
        #expect(throws: DomainError.self) {
            try book.validateAdd(id: id(1), name: "read\u{9B}31m", icon: .book, color: .blue, now: noon)
        }
        let accounts = AccountBook()
        #expect(throws: DomainError.self) {
            try accounts.validateAdd(
                username: "ann", displayName: String(repeating: "ü", count: 129), role: .member, timeZone: .utc,
                passwordHash: "x", now: noon)
        }
        #expect(throws: DomainError.self) {
            try accounts.validateAdd(
                username: "ann", displayName: "Ann\u{1B}]0;owned\u{7}", role: .member, timeZone: .utc,
                passwordHash: "x", now: noon)
        }
    }
}
