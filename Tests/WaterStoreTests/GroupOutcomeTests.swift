import Glibc
import Testing
import WaterCore
import WaterSync
import WaterTestSupport

@testable import WaterStore

/// What a group tells of its writes (``GroupOutcome``): exactly which were not stored, so that
/// a reply is refused only when its own write was lost (issue 31 item 2); and what a read off
/// the loop may show (``GroupCommitter/endStoreRead(_:then:)``).
@Suite("What became of a group's writes")
struct GroupOutcomeTests {
    @Test(
        "a write refused for its archive's earlier failure (stale) loses that archive only: another archive's write in the same group is stored, and told so"
    )
    func staleWriteLosesItsArchiveOnly() throws {
        let disk = SimulatedDisk()
        let faults = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faults)
        let (ann, ben) = (try store.createMember(1), try store.createMember(2))
        let committer = store.committer
        // One group, as a loop's turn gathers it, in two frames: ann's first drink, whose sync
        // fails and rolls her diary back; then, after a task that mends the disk, her second
        // drink (queued before the roll-back: stale) and ben's.
        #expect(committer.acquireLeadership())
        faults.failStarting(at: 1, of: .sync, errno: EIO)
        let first = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () })
        committer.perform { faults.clearFaults() }
        let stale = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(2)) }, result: { _, _ in () })
        let stored = try ben.commitReturning({ _ in Decision(LogWriterTests.drink(3)) }, result: { _, _ in () })
        #expect(stale.written == first.written && stored.written != stale.written)
        #expect(first.group == stored.group)

        let outcome = try #require(committer.commitNextGroup())
        #expect(committer.commitNextGroup() == nil, "nothing left; the leadership is given up")
        #expect(outcome.group == stored.group && !outcome.succeeded)
        #expect(outcome.lost == [first.written], "ann's writes in her first epoch, and nothing of ben's")
        #expect(try ann.read { $0.water.entries.count } == 0)
        #expect(try ben.read { $0.water.entries.count } == 1)
        // Ann writes again in her next epoch: a later loss of her old one says nothing of it.
        let again = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(4)) }, result: { _, _ in () })
        #expect(again.written.archive == first.written.archive && again.written.epoch == first.written.epoch + 1)
        store.close()

        let reopened = try openStore(disk.crash())
        #expect(try reopened.member(2)?.read { $0.water.entries.map(\.id) } == [id(3)], "ben's drink is on disk")
        #expect(try reopened.member(1)?.read { $0.water.entries.map(\.id) } == [id(4)])
    }

    @Test("a read off the loop waits for every group it could have seen, and is told whether any of them failed")
    func storeRead() throws {
        let disk = SimulatedDisk()
        let faults = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faults)
        let ann = try store.createMember(1)
        let committer = store.committer
        let told = Locked<[Bool]>([])
        let tell: @Sendable (Bool) -> Void = { stored in told.withLock { $0.append(stored) } }

        // Nothing unsynced: told at once.
        committer.endStoreRead(committer.beginStoreRead(), then: tell)
        #expect(told.withLock { $0 } == [true])

        // Held leadership: two groups queue up; the read sees both.
        #expect(committer.acquireLeadership())
        _ = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () })
        let read = committer.beginStoreRead()
        #expect(try ann.read { $0.water.entries.count } == 1, "the read shows the unsynced drink")
        committer.endStoreRead(read, then: tell)
        #expect(told.withLock { $0 } == [true], "it waits")
        // The first group fails; the next one (queued before the read ended) is durable.
        faults.failStarting(at: 1, of: .sync, errno: EIO)
        let first = try #require(committer.commitNextGroup())
        committer.notices.finished(first.group, succeeded: first.succeeded)
        faults.clearFaults()
        #expect(told.withLock { $0 } == [true, false], "its only group failed")

        // A read that began before the group failed, but after it was rolled back and told, shows
        // nothing of it: only the next group, durable, counts.
        let later = committer.beginStoreRead()
        _ = try ann.commitReturning({ _ in Decision(LogWriterTests.drink(2)) }, result: { _, _ in () })
        committer.endStoreRead(later, then: tell)
        let next = try #require(committer.commitNextGroup())
        #expect(next.succeeded && next.group == first.group + 1)
        committer.notices.finished(next.group, succeeded: true)
        #expect(told.withLock { $0 } == [true, false, true])
        #expect(committer.commitNextGroup() == nil)
        store.close()
    }

    @Test("notices over a range of groups: refused when any of them failed, an early one too, or one forgotten")
    func rangeNotices() {
        let notices = DurableNotices()
        let told = Locked<[String]>([])
        func tell(_ name: String) -> DurableNotices.Notice {
            { stored in told.withLock { $0.append("\(name) \(stored)") } }
        }
        notices.after(3...5, tell("3-5"))
        notices.after(5...5, tell("5"))
        notices.finished(3, succeeded: false)
        notices.finished(4, succeeded: true)
        #expect(told.withLock { $0 }.isEmpty, "it waits for the newest")
        notices.finished(5, succeeded: true)
        #expect(told.withLock { $0 } == ["3-5 false", "5 true"], "group 3's failure refuses what could show it")
        // Late, once finished: at once.
        notices.after(4...5, tell("4-5"))
        #expect(told.withLock { $0 }.last == "4-5 true")
        // A failure that fell out of the remembered ones counts for any range reaching back to it.
        for group in UInt64(6)...UInt64(6 + DurableNotices.failuresRemembered) {
            notices.finished(group, succeeded: false)
        }
        let newest = UInt64(6 + DurableNotices.failuresRemembered)
        notices.finished(newest + 1, succeeded: true)
        notices.after(6...(newest + 1), tell("old"))
        notices.after((newest + 1)...(newest + 1), tell("new"))
        #expect(told.withLock { $0 }.suffix(2) == ["old false", "new true"])
    }
}
