import Testing
import WaterCore

/// The household's cap on members: the 16th is taken, a 17th is refused naming the cap, and a
/// removed member cannot be brought back past it either.
@Suite("Member cap")
struct MemberCapTests {
    private func add(_ name: String, to book: inout AccountBook) throws {
        book.apply(
            try book.validateAdd(
                username: name, displayName: name, role: .member, timeZone: .utc, passwordHash: "hash", now: 0))
    }

    @Test func aSeventeenthMemberIsRefusedNamingTheCap() throws {
        var book = AccountBook()
        for n in 1...AccountBook.maximumMembers { try add("m\(n)", to: &book) }
        #expect(book.members.count == 16)
        let error = #expect(throws: DomainError.self) { try add("extra", to: &book) }
        #expect(error?.kind == .full)
        #expect(error?.message.contains("at most 16 members") == true)
        #expect(book.account(named: "extra") == nil)
    }

    @Test func aRemovedMemberComesBackOnlyUnderTheCap() throws {
        var book = AccountBook()
        for n in 1...AccountBook.maximumMembers { try add("m\(n)", to: &book) }
        book.apply(.removed(memberID: try #require(book.account(named: "m1")).id, atUnixMilliseconds: nil))
        try add("m17", to: &book)
        let error = #expect(throws: DomainError.self) { try book.validateRestore("m1", now: 0) }
        #expect(error?.message.contains("at most 16 members") == true)
        book.apply(.removed(memberID: try #require(book.account(named: "m17")).id, atUnixMilliseconds: nil))
        book.apply(try book.validateRestore("m1", now: 0))
        #expect(book.account(named: "m1") != nil)
    }
}
