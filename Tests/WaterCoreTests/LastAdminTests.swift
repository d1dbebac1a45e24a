import Testing
import WaterCore

/// A household always has an admin: removing the last one and making them a member are refused
/// by one rule, with one kind of refusal, and both are allowed once another admin exists.
@Suite("The last admin")
struct LastAdminTests {
    private func household() throws -> AccountBook {
        var book = AccountBook()
        for (name, role) in [("mum", Role.admin), ("dad", Role.member)] {
            book.apply(
                try book.validateAdd(
                    username: name, displayName: name, role: role, timeZone: .utc, passwordHash: "hash", now: 0))
        }
        return book
    }

    @Test func removingAndDemotingTheLastAdminAreRefusedAlike() throws {
        let book = try household()
        let removal = #expect(throws: DomainError.self) { try book.validateRemoval("mum", now: 0) }
        let demotion = #expect(throws: DomainError.self) { try book.validateRole("mum", role: .member) }
        #expect(removal?.kind == .full && demotion?.kind == .full)
        #expect(removal?.field == "username" && demotion?.field == "role")
        #expect(removal?.message.contains("last admin") == true && demotion?.message.contains("last admin") == true)
    }

    @Test func aMemberIsRemovedAndAnAdminOnceAnotherAdminExists() throws {
        var book = try household()
        let dad = try #require(book.account(named: "dad"))
        #expect(try book.validateRemoval("dad", now: 0) == .removed(memberID: dad.id, atUnixMilliseconds: 0))
        book.apply(try #require(try book.validateRole("dad", role: .admin)))
        let mum = try #require(book.account(named: "mum"))
        #expect(try book.validateRemoval("mum", now: 0) == .removed(memberID: mum.id, atUnixMilliseconds: 0))
        #expect(try book.validateRole("mum", role: .member) != nil)
    }
}
