import Dispatch
import Glibc
import Testing
import WaterCore
import WaterSync
import WaterSystem
import WaterTestSupport

@testable import WaterStore

/// The groups a writer told of, as a loop hears of them, and a way to wait for one: each one
/// rings `news`.
final class ToldGroups: Sendable {
    private let told = Locked<[(group: UInt64, succeeded: Bool)]>([])
    private let news = DispatchSemaphore(value: 0)

    var all: [(group: UInt64, succeeded: Bool)] { told.withLock { $0 } }
    var numbers: [UInt64] { all.map(\.group) }
    var newest: UInt64 { told.withLock { $0.last?.group ?? 0 } }

    func tell(_ outcome: GroupOutcome) {
        told.withLock { $0.append((outcome.group, outcome.succeeded)) }
        news.signal()
    }

    /// Waits until the writer has told of the group the last write was queued for.
    func waitForTheWriter(_ committer: GroupCommitter) {
        let queued = committer.lastQueuedGroup
        while newest < queued {
            guard news.wait(timeout: .now() + 10) == .success else {
                Issue.record("the writer never told of group \(queued)")
                return
            }
        }
    }
}

/// The committer's writer thread, as a server runs it: submitters never lead, groups are taken
/// and told in order, and a group whose sync failed is told so, its writes rolled back.
@Suite("The log's writer")
struct LogWriterTests {
    static func drink(_ n: Int) -> MemberMutation {
        .water(.logged(WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart + Int64(n))))
    }

    @Test("groups come in order and each is told once durable; a failed sync fails its group and rolls its writes back")
    func groupsInOrder() throws {
        let disk = SimulatedDisk()
        let faults = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faults)
        let archive = try store.createMember(1)
        let told = ToldGroups()
        store.committer.startWriter(onGroup: told.tell)
        #expect(!store.committer.acquireLeadership(), "the writer holds the leadership")
        // Publishes as a loop that has heard of no group yet, so the writer takes every turn.
        func handToTheWriter() {
            #expect(store.committer.publishTurn(deliveredThrough: 0) == .handedToWriter)
            told.waitForTheWriter(store.committer)
        }
        for n in 0..<20 {
            // Returns at once: the writer commits it, the caller never leads.
            try archive.commitReturning({ _ in Decision(Self.drink(n)) }, result: { _, _ in () })
        }
        let queued = store.committer.lastQueuedGroup
        handToTheWriter()
        let groups = told.all
        #expect(groups.allSatisfy { $0.succeeded })
        #expect(zip(groups, groups.dropFirst()).allSatisfy { $0.group < $1.group }, "\(groups.map(\.group))")
        #expect(groups.contains { $0.group == queued }, "the group the last write was queued for was told")

        faults.failStarting(at: 1, of: .sync, errno: EIO)
        try archive.commitReturning({ _ in Decision(Self.drink(100)) }, result: { _, _ in () })
        let failing = store.committer.lastQueuedGroup
        handToTheWriter()
        #expect(told.all.contains { $0.group == failing && !$0.succeeded })
        #expect(try archive.read({ $0.water.entry(id(100)) }) == nil, "rolled back")

        faults.clearFaults()
        try archive.commitReturning({ _ in Decision(Self.drink(101)) }, result: { _, _ in () })
        handToTheWriter()
        #expect(told.all.last?.succeeded == true)
        store.close()
        let reopened = try openStore(disk.crash())
        let ids = try reopened.member(1)!.read { $0.water.entries.map(\.id) }
        #expect(Set(ids) == Set((0..<20).map(id) + [id(101)]))
    }

    @Test(
        "a turn's lone write is committed by the loop itself, durable on return; anything more, or a loop behind on the writer's news, goes to the writer"
    )
    func loneWriteCommittedHere() throws {
        let disk = SimulatedDisk()
        let faults = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faults)
        let archive = try store.createMember(1)
        let committer = store.committer
        let told = ToldGroups()
        committer.startWriter(onGroup: told.tell)
        func turn(_ drinks: [Int], deliveredThrough: UInt64) throws -> GroupCommitter.Publication {
            for n in drinks { try archive.commitReturning({ _ in Decision(Self.drink(n)) }, result: { _, _ in () }) }
            return committer.publishTurn(deliveredThrough: deliveredThrough)
        }

        #expect(try turn([1], deliveredThrough: 0) == .committedHere(GroupOutcome(group: 1)))
        #expect(committer.currentStatistics.syncs == 1, "synced before it returned")
        #expect(try turn([2, 3], deliveredThrough: 0) == .handedToWriter, "two writes: the writer's")
        told.waitForTheWriter(committer)
        #expect(told.numbers == [2])
        #expect(try turn([4], deliveredThrough: 2) == .handedToWriter, "the last group held two")
        told.waitForTheWriter(committer)
        #expect(try turn([5], deliveredThrough: 2) == .handedToWriter, "the loop has not heard of group 3 yet")
        told.waitForTheWriter(committer)
        #expect(told.numbers == [2, 3, 4])
        #expect(try turn([6], deliveredThrough: 4) == .committedHere(GroupOutcome(group: 5)))
        #expect(committer.publishTurn(deliveredThrough: 5) == .handedToWriter, "nothing queued")

        faults.failStarting(at: 1, of: .sync, errno: EIO)
        #expect(
            try turn([7], deliveredThrough: 5)
                == .committedHere(GroupOutcome(group: 6, lost: [ArchiveEpoch(archive: archive.key, epoch: 0)])))
        #expect(try archive.read({ $0.water.entry(id(7)) }) == nil, "rolled back")
        faults.clearFaults()
        store.close()
        #expect(told.numbers.allSatisfy { ![1, 5, 6].contains($0) }, "the loop's own groups are not told")
        let ids = try openStore(disk.crash()).member(1)!.read { $0.water.entries.map(\.id) }
        #expect(Set(ids) == Set((1...6).map(id)))
    }
}
