import Foundation
import Testing
import WaterCore
import WaterSync
import WaterTestSupport

@testable import WaterStore

/// Who hears of writes besides their callers hears once their group has finished, in order,
/// and is told whether it was durable.
@Suite("Notices of durable writes")
struct DurableNoticesTests {
    private final class Heard: Sendable {
        let all = Locked<[(name: String, succeeded: Bool)]>([])
        func notice(_ name: String) -> DurableNotices.Notice {
            { succeeded in self.all.withLock { $0.append((name, succeeded)) } }
        }
        var names: [String] { all.withLock { $0.map(\.name) } }
        /// Each notice heard, as "name succeeded".
        var told: [String] { all.withLock { $0.map { "\($0.name) \($0.succeeded)" } } }
    }

    @Test("a notice waits for its group; groups finished together run theirs in order")
    func waitsForItsGroup() {
        let (notices, heard) = (DurableNotices(), Heard())
        notices.after(2, heard.notice("two"))
        notices.after(3, heard.notice("three"))
        notices.finished(1, succeeded: true)
        #expect(heard.names.isEmpty && notices.waitingCount == 2)
        notices.finished(3, succeeded: true)
        #expect(heard.names == ["two", "three"] && notices.waitingCount == 0)
        let succeeded = heard.all.withLock { $0.map(\.succeeded) }
        #expect(succeeded == [true, true])
    }

    @Test("a failed group is told so; an earlier one finished with it was durable")
    func failure() {
        let (notices, heard) = (DurableNotices(), Heard())
        notices.after(4, heard.notice("four"))
        notices.after(5, heard.notice("five"))
        notices.finished(5, succeeded: false)
        #expect(heard.told == ["four true", "five false"])
    }

    @Test("a notice for a group already finished runs at once, told whether that group failed")
    func late() {
        let (notices, heard) = (DurableNotices(), Heard())
        notices.finished(6, succeeded: false)
        notices.finished(7, succeeded: true)
        notices.after(6, heard.notice("six"))
        notices.after(7, heard.notice("seven"))
        notices.after(0, heard.notice("nothing queued yet"))
        #expect(
            heard.all.withLock { $0.map { "\($0.name) \($0.succeeded)" } } == [
                "six false", "seven true", "nothing queued yet true",
            ])
    }

    @Test(
        "in the store without a writer, the leader tells: a notice after a write runs once it is durable, once per group"
    )
    func leaderTells() throws {
        let store = try openStore(SimulatedDisk().fileSystem())
        let archive = try store.createMember(1)
        _ = try archive.commitReturning({ _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () })
        let (heard, notice) = (Heard(), GroupNotice(store.committer))
        notice.listen(heard.notice("drink"))
        notice.changed()
        #expect(heard.names == ["drink"])
        // Another change in the same group adds no notice: that group's has run.
        notice.changed()
        #expect(heard.names == ["drink"] && store.committer.notices.waitingCount == 0)
        let read = store.committer.beginDurableRead()
        let retried = Locked(false)
        let usable = store.committer.endDurableRead(read, orElse: { retried.withLock { $0 = true } })
        #expect(usable && !retried.withLock { $0 }, "nothing was in flight")
    }

    @Test("flush returns once the groups before it are told to their listeners, not only once its task ran")
    func flushWaitsForTheNotices() throws {
        let store = try openStore(SimulatedDisk().fileSystem())
        let archive = try store.createMember(1)
        let committer = store.committer
        // This thread leads, so the write, the notice and flush's task gather in one group.
        #expect(committer.acquireLeadership())
        try archive.commitReturning({ _ in Decision(LogWriterTests.drink(1)) }, result: { _, _ in () })
        let (listening, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let notice = GroupNotice(committer)
        notice.listen { _ in
            listening.signal()
            release.wait()
        }
        notice.changed()
        let flushed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            committer.flush()
            flushed.signal()
        }
        // Flush's task is queued behind the write (bounded: 30 s).
        let queuedBy = DispatchTime.now() + 30
        while committer.pending.withLock({ $0.work.count }) < 2, DispatchTime.now() < queuedBy { usleep(1000) }
        #expect(committer.pending.withLock { $0.work.count } == 2)
        // Lead on another thread: it runs the group (flush's task too), then tells the notice,
        // which holds until released.
        let led = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            committer.lead()
            led.signal()
        }
        #expect(listening.wait(timeout: .now() + 30) == .success)
        #expect(flushed.wait(timeout: .now() + 0.3) == .timedOut, "flush returned while a listener was being told")
        release.signal()
        #expect(flushed.wait(timeout: .now() + 30) == .success)
        #expect(led.wait(timeout: .now() + 30) == .success)
    }
}
