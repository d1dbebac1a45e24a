import Dispatch
import Testing

@testable import WaterStore

/// The committer's leadership, event by event: no thread, no disk.
@Suite("Commit leadership")
struct CommitLeadershipTests {
    @Test("without a writer, the first to queue leads; the others only queue until it lets go")
    func callerLeads() {
        var leadership = CommitLeadership()
        let step1 = leadership.queued(isWaitedOn: false)
        #expect(step1 == .lead)
        let step2 = leadership.queued(isWaitedOn: true)
        #expect(step2 == .nothing)
        let step3 = leadership.acquire()
        #expect(!step3)
        leadership.callerFoundNothing()
        #expect(leadership.leader == .nobody)
        let step4 = leadership.acquire()
        #expect(step4, "a test gathers a group")
        let step5 = leadership.queued(isWaitedOn: true)
        #expect(step5 == .nothing)
    }

    @Test("with a writer, a loop's write waits for the turn; a waited-on one wakes an idle writer once")
    func writerWakesOnce() {
        var leadership = CommitLeadership()
        leadership.writerStarted()
        let step6 = leadership.acquire()
        #expect(!step6, "submitters never lead again")
        var deadline: DispatchTime?
        let step7 = leadership.writerLooks(queued: 0, now: .now(), patience: 0, deadline: &deadline)
        #expect(step7 == .wait(until: nil))
        let step8 = leadership.queued(isWaitedOn: false)
        #expect(step8 == .nothing, "a loop's write waits for its turn's end")
        let step9 = leadership.queued(isWaitedOn: true)
        #expect(step9 == .wakeWriter)
        let step10 = leadership.queued(isWaitedOn: true)
        #expect(step10 == .nothing, "woken already")
        let step11 = leadership.writerLooks(queued: 3, now: .now(), patience: 0, deadline: &deadline)
        #expect(step11 == .take)
        leadership.took(writes: 3, leftPublished: false)
        deadline = nil
        let step12 = leadership.writerLooks(queued: 0, now: .now(), patience: 0, deadline: &deadline)
        #expect(step12 == .wait(until: nil))
    }

    @Test("a turn's lone write, with every earlier group told, is the loop's to commit; the writer waits meanwhile")
    func loopCommitsALoneWrite() {
        var leadership = CommitLeadership()
        leadership.writerStarted()
        let step13 = leadership.turnEnded(queued: 1, gathering: 1, deliveredThrough: 0)
        #expect(step13 == .commitHere)
        var deadline: DispatchTime?
        let step14 = leadership.writerLooks(queued: 1, now: .now(), patience: 0, deadline: &deadline)
        #expect(step14 == .wait(until: nil))
        let step15 = leadership.turnEnded(queued: 1, gathering: 1, deliveredThrough: 0)
        #expect(step15 == .nothing, "one at a time")
        leadership.took(writes: 1, leftPublished: false)
        let step16 = leadership.loopCommitted(workLeft: true)
        #expect(step16, "what others queued meanwhile wakes the writer")
    }

    @Test(
        "the writer has the turn when a group is in its hands, the turn has more than one write, or the last group had more"
    )
    func writerTakesTheTurn() {
        var leadership = CommitLeadership()
        leadership.writerStarted()
        var deadline: DispatchTime?
        _ = leadership.writerLooks(queued: 0, now: .now(), patience: 0, deadline: &deadline)
        #expect(
            leadership.turnEnded(queued: 1, gathering: 3, deliveredThrough: 1) == .wakeWriter, "group 2 not told yet")
        let step17 = leadership.writerLooks(queued: 1, now: .now(), patience: 0, deadline: &deadline)
        #expect(step17 == .take)
        leadership.took(writes: 1, leftPublished: false)
        let step18 = leadership.turnEnded(queued: 2, gathering: 4, deliveredThrough: 3)
        #expect(step18 == .nothing, "published; not idle")
        deadline = nil
        let step19 = leadership.writerLooks(queued: 2, now: .now(), patience: 0, deadline: &deadline)
        #expect(step19 == .take)
        leadership.took(writes: 2, leftPublished: false)
        #expect(
            leadership.turnEnded(queued: 1, gathering: 5, deliveredThrough: 4) != .commitHere, "the last group had 2")
        let step20 = leadership.turnEnded(queued: 0, gathering: 5, deliveredThrough: 4)
        #expect(step20 == .nothing)
    }

    @Test(
        "after a sync, fewer writes than the last group wait for the rest until the deadline; writes left by the cap go at once"
    )
    func topUp() {
        var leadership = CommitLeadership()
        leadership.writerStarted()
        var deadline: DispatchTime?
        _ = leadership.queued(isWaitedOn: true)
        let step21 = leadership.writerLooks(queued: 8, now: .now(), patience: 0, deadline: &deadline)
        #expect(step21 == .take)
        leadership.took(writes: 8, leftPublished: false)
        _ = leadership.queued(isWaitedOn: true)
        deadline = nil
        let now = DispatchTime.now()
        let step22 = leadership.writerLooks(queued: 2, now: now, patience: 1_000_000, deadline: &deadline)
        #expect(step22 == .wait(until: now + .nanoseconds(1_000_000)))
        #expect(
            leadership.writerLooks(queued: 2, now: now + .milliseconds(2), patience: 1_000_000, deadline: &deadline)
                == .take)
        leadership.took(writes: 2, leftPublished: true)
        deadline = nil
        let step23 = leadership.writerLooks(queued: 5, now: .now(), patience: 0, deadline: &deadline)
        #expect(step23 == .take)
    }

    @Test("a writer asked to stop takes what is left, then stops; without a writer there is nothing to stop")
    func stop() {
        var idle = CommitLeadership()
        let step24 = idle.stopRequested()
        #expect(!step24)
        var leadership = CommitLeadership()
        leadership.writerStarted()
        let step25 = leadership.stopRequested()
        #expect(step25)
        var deadline: DispatchTime?
        let step26 = leadership.writerLooks(queued: 1, now: .now(), patience: 0, deadline: &deadline)
        #expect(step26 == .take)
        leadership.took(writes: 1, leftPublished: false)
        let step27 = leadership.writerLooks(queued: 0, now: .now(), patience: 0, deadline: &deadline)
        #expect(step27 == .stop)
        #expect(
            leadership.turnEnded(queued: 1, gathering: 2, deliveredThrough: 1) != .commitHere,
            "no lone commit while stopping")
    }
}
