import Dispatch
import Glibc
import Testing
import WaterCore
import WaterSync
import WaterTestSupport

@testable import WaterStore

/// A group of the shared log is capped (LevelDB's BuildBatchGroup): a large write whose caller
/// waits on its own completion goes to the next group, so small writes taken with it are not
/// held behind its bytes; nothing else moves.
@Suite("The cap on a group's size")
struct GroupCapTests {
    private final class Key: Sendable {}
    /// Kept alive, so that each archive's identifier stays its own.
    private static let keys = [Key(), Key(), Key()]
    private static let (ann, ben, kim) = (
        ObjectIdentifier(keys[0]), ObjectIdentifier(keys[1]), ObjectIdentifier(keys[2])
    )

    private static func write(_ bytes: Int, _ archive: ObjectIdentifier, completion: Bool = true) -> GroupCap.Submission
    {
        GroupCap.Submission(bytes: bytes, archive: archive, hasCompletion: completion)
    }

    private static let task = GroupCap.Submission(bytes: 0, archive: nil, hasCompletion: true)
    private static let large = 200 << 10

    @Test("after a small first write, a write past it plus 128 KiB waits; what fits after it still goes")
    func smallFirst() {
        #expect(
            GroupCap.deferrable([Self.write(60, Self.ann), Self.write(Self.large, Self.ben), Self.write(60, Self.kim)])
                == [1])
        #expect(GroupCap.deferrable([Self.write(60, Self.ann), Self.write(100 << 10, Self.ben)]).isEmpty)
    }

    @Test("a large first write goes, and the group grows to 1 MiB")
    func largeFirst() {
        let writes = [
            Self.write(Self.large, Self.ann), Self.write(700 << 10, Self.ben), Self.write(Self.large, Self.kim),
        ]
        #expect(GroupCap.deferrable(writes) == [2])
        #expect(GroupCap.deferrable([Self.write(2 << 20, Self.ann)]).isEmpty, "the first write always goes")
    }

    @Test("a write stays when a loop waits for its group, a task follows it, or its archive writes again after it")
    func whatStays() {
        #expect(
            GroupCap.deferrable([Self.write(60, Self.ann), Self.write(Self.large, Self.ben, completion: false)]).isEmpty
        )
        #expect(GroupCap.deferrable([Self.write(60, Self.ann), Self.write(Self.large, Self.ben), Self.task]).isEmpty)
        // The large one stays (its archive's next write follows it); that next one, past the cap, may wait.
        #expect(
            GroupCap.deferrable([Self.write(60, Self.ann), Self.write(Self.large, Self.ben), Self.write(60, Self.ben)])
                == [2])
        #expect(GroupCap.deferrable([Self.write(60, Self.ann), Self.task, Self.write(Self.large, Self.ben)]) == [2])
    }

    @Test(
        "in the store: a member's large write is synced in a frame after the small writes queued with it, and nothing is lost"
    )
    func inTheStore() throws {
        let disk = SimulatedDisk()
        let store = try openStore(disk.fileSystem(), threshold: 1 << 30, segment: 4 << 20)
        let (ann, ben, kim) = (try store.createMember(1), try store.createMember(2), try store.createMember(3))
        // Gathers one group, as a busy writer would find it.
        #expect(store.committer.acquireLeadership())
        _ = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () })
        let imported = Self.largeImport()
        let told = Locked<[Bool]>([])
        try ben.commit(
            { _ in Decision(imported) }, result: { _, _ in () },
            completion: { result in
                told.withLock { $0.append((try? result.get()) != nil) }
            })
        _ = try kim.commitReturning({ _ in Decision(LogWriterTests.drink(2)) }, result: { _, _ in () })
        #expect(store.committer.lead())
        #expect(told.withLock { $0 } == [true])
        #expect(store.committer.currentStatistics.deferredWrites == 1)

        let index = try LogIndex.read("/data/log", fileSystem: disk.fileSystem())
        let frameEnd = { (archive: Archive<MemberArchive>) in index.chunks[archive.key]?.map(\.frameEnd) ?? [] }
        #expect(frameEnd(ann).count == 1 && frameEnd(ann) == frameEnd(kim), "the small writes share a frame")
        #expect(frameEnd(ben).count == 1 && frameEnd(ben)[0] > frameEnd(ann)[0], "the large one is the next frame")
        store.close()

        let reopened = try openStore(disk.crash(), threshold: 1 << 30, segment: 4 << 20)
        #expect(try reopened.member(2)?.read { $0.water.entries.count } == 6000)
        #expect(try reopened.member(1)?.read { $0.water.entries.count } == 1)
        #expect(try reopened.member(3)?.read { $0.water.entries.count } == 1)
    }
    @Test(
        "a group that fails refuses only its own writes: the group synced before it in the same lead stays, after a crash too"
    )
    func laterGroupFails() throws {
        let disk = SimulatedDisk()
        let faults = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faults, threshold: 1 << 30, segment: 4 << 20)
        let (ann, ben, kim) = (try store.createMember(1), try store.createMember(2), try store.createMember(3))
        // One lead, as one turn of the loop gathers it: ann's and kim's drinks, ben's import past the cap.
        #expect(store.committer.acquireLeadership())
        let told = Locked<[String: Bool]>([:])
        let tell = { @Sendable (name: String) in
            { @Sendable (result: Result<Void, ArchiveError>) in told.withLock { $0[name] = (try? result.get()) != nil }
            }
        }
        // Once the first group is durable (ann's completion runs then), every sync fails, as a
        // full disk's would: the second group's (ben's import alone) is refused.
        try ann.commit(
            { _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () },
            completion: { result in
                tell("ann")(result)
                faults.failStarting(at: 1, of: .sync, errno: ENOSPC)
            })
        let imported = Self.largeImport()
        try ben.commit({ _ in Decision(imported) }, result: { _, _ in () }, completion: tell("ben"))
        try kim.commit({ _ in Decision(LogWriterTests.drink(2)) }, result: { _, _ in () }, completion: tell("kim"))
        #expect(!store.committer.lead())
        #expect(store.committer.currentStatistics.groups == 2 && store.committer.currentStatistics.failures == 1)
        #expect(told.withLock { $0 } == ["ann": true, "kim": true, "ben": false])
        #expect(try ben.read { $0.water.entries.count } == 0, "rolled back in memory")
        #expect(try ann.read { $0.water.entries.count } == 1)
        store.close()

        let reopened = try openStore(disk.crash(), threshold: 1 << 30, segment: 4 << 20)
        #expect(try reopened.member(1)?.read { $0.water.entries.count } == 1)
        #expect(try reopened.member(3)?.read { $0.water.entries.count } == 1)
        #expect(try reopened.member(2)?.read { $0.water.entries.count } == 0, "a refused write is not stored")
    }

    /// 6000 drinks, an import's part well past the cap.
    static func largeImport() -> [MemberMutation] {
        (0..<6000).map { n in
            MemberMutation.water(
                .logged(
                    WaterEntry(
                        id: id(10 + n), amountMillilitres: 250, unixMilliseconds: workloadStart + Int64(n) * 3_600_000))
            )
        }
    }

    @Test(
        "a write the cap moves to the next group raises lastQueuedGroup to that group: what it applied is read as unsynced"
    )
    func deferredWriteIsWaitedFor() throws {
        let store = try openStore(SimulatedDisk().fileSystem(), threshold: 1 << 30, segment: 4 << 20)
        let (ann, ben) = (try store.createMember(1), try store.createMember(2))
        let committer = store.committer
        #expect(committer.acquireLeadership())
        // Read while ann's group is synced: ben's import is in memory already, and in group 2.
        let seenDuringTheFirstGroup = Locked<UInt64>(0)
        try ann.commit(
            { _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () },
            completion: { _ in seenDuringTheFirstGroup.withLock { $0 = committer.lastQueuedGroup } })
        try ben.commit({ _ in Decision(Self.largeImport()) }, result: { _, _ in () }, completion: { _ in })
        #expect(committer.lastQueuedGroup == 1)
        #expect(committer.lead())
        #expect(committer.currentStatistics.deferredWrites == 1)
        #expect(seenDuringTheFirstGroup.withLock { $0 } == 2)
        store.close()
    }
}
