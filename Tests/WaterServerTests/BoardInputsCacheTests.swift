import Foundation
import Testing
import WaterCore
import WaterStore
import WaterZoneInfo

@testable import WaterServer

/// The board's per-member inputs: a member's write refreshes theirs alone, an idle drop none,
/// and the board built from them is the one built from every whole archive.
@Suite("Board inputs cache")
struct BoardInputsCacheTests {
    static let now: Int64 = 1_796_025_600_000 + 12 * 3_600_000

    /// Adds member `name` to the accounts and returns their archive.
    private func add(_ name: String, to store: FileArchiveStore) throws -> Archive<MemberArchive> {
        let id: UInt64 = try store.accounts.commitAndWait(
            { book in
                [
                    try book.validateAdd(
                        username: name, displayName: name, role: .member, timeZone: .utc, passwordHash: "x", now: 0)
                ]
            }, result: { $0.account(named: name)!.id })
        return try store.createMember(id)
    }

    private func log(_ amount: Int32, daysAgo: Int64, to archive: Archive<MemberArchive>) throws {
        try archive.commitAndWait { _ in
            [
                .water(
                    .logged(
                        WaterEntry(
                            id: RecordID(high: 1, low: UInt64.random(in: 1...UInt64.max)), amountMillilitres: amount,
                            unixMilliseconds: Self.now - daysAgo * 86_400_000)))
            ]
        }
    }

    /// The board built from every member's whole archive, as before the cache.
    private func fromScratch(_ store: FileArchiveStore, week: ISOWeek) throws -> WeeklyBoard {
        let members = try store.accounts.read { $0.members }.map { account in
            let archive = try store.member(account.id)!.read { $0 }
            return BoardMember(
                username: account.username, displayName: account.displayName, water: archive.water,
                habits: archive.habits, createdAtUnixMilliseconds: account.createdAtUnixMilliseconds,
                privacy: archive.privacy)
        }
        return WeeklyBoard(members: members, week: week, order: .progress, now: Self.now)
    }

    /// A store whose members ann, bob and cat logged 300, 400 and 500 ml a day for `days` days,
    /// with their archives (which `body` may let go of).
    private func withHousehold(
        days: Int, _ body: (FileArchiveStore, inout [Archive<MemberArchive>]) throws -> Void
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileArchiveStore(
            path: directory, options: StoreOptions(timeZones: ZoneInfo.system), owner: "board tests")
        defer { store.close() }
        var archives = try ["ann", "bob", "cat"].map { try add($0, to: store) }
        for (n, archive) in archives.enumerated() {
            for day in 0..<days { try log(Int32(300 + 100 * n), daysAgo: Int64(day), to: archive) }
        }
        try body(store, &archives)
    }

    @Test("a member's write refreshes only their inputs, and the board equals one built from scratch")
    func refreshesOnlyTheWriter() throws {
        try withHousehold(days: 10) { store, archives in
            let builder = BoardBuilder(store: store, householdTimeZone: .utc)
            let week = builder.currentWeek(now: Self.now)
            let inputs = builder.cache.inputs

            #expect(
                builder.board(week: week, order: .progress, now: Self.now).0 == (try fromScratch(store, week: week)))
            #expect(inputs.refreshes == 3)
            _ = builder.board(week: week, order: .progress, now: Self.now)
            #expect(inputs.refreshes == 3)

            try log(2500, daysAgo: 0, to: archives[1])
            let board = builder.board(week: week, order: .progress, now: Self.now).0
            #expect(inputs.refreshes == 4)
            #expect(board == (try fromScratch(store, week: week)))
            #expect(board.standings.first?.username == "bob")

            // Idle archives dropped from memory are not loaded again for a board.
            archives = []
            for _ in 0..<3 {
                store.dropIdleMembers()
                store.flush()
            }
            #expect(store.loadedStatus.loaded == 2)
            #expect(builder.board(week: week, order: .progress, now: Self.now).0 == board)
            #expect(inputs.refreshes == 4)
            #expect(store.loadedStatus.loaded == 2)
        }
    }

    @Test("past weeks' boards are kept until something changes, and equal boards built anew")
    func pastWeeks() throws {
        try withHousehold(days: 30) { store, archives in
            let builder = BoardBuilder(store: store, householdTimeZone: .utc)
            let first = builder.history(weeks: 52, order: .progress, viewer: nil, now: Self.now)
            #expect(builder.cache.pastBoards.withLock { $0.count } == 52)
            #expect(builder.history(weeks: 52, order: .progress, viewer: "ann", now: Self.now) == first)

            try log(3000, daysAgo: 8, to: archives[0])
            builder.changed()
            let after = builder.history(weeks: 52, order: .progress, viewer: nil, now: Self.now)
            #expect(after != first)
            let anew = BoardBuilder(store: store, householdTimeZone: .utc)
            #expect(after == anew.history(weeks: 52, order: .progress, viewer: nil, now: Self.now))
        }
    }
}
