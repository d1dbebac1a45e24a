import Testing
import WaterStore

@testable import WaterServer

/// A connection's replies as ``HeldReplies`` drives them: made in a turn, tagged at its end with
/// a group, sent in order once that group is durable. Kept as the connection keeps them
/// (``PendingReplies``), without a socket.
private final class Replies: HoldsReplies {
    private var pending = PendingReplies()
    private var nextByte = 0
    private(set) var sent: [UInt64] = []
    private(set) var refused: [UInt64] = []

    /// A reply of `call`: one that read the archives when group `seen` was the newest queued
    /// (and wrote in `own`), or, with `seen` nil, one that showed no store (an error).
    func reply(_ call: UInt64, seen: UInt64? = nil, own: UInt64? = nil) {
        pending.append(call, bytes: nextByte..<(nextByte + 1), seen: seen, own: own.map { $0...$0 })
        nextByte += 1
    }

    /// How many times ``HeldReplies`` let its replies go when a group was done.
    private(set) var releases = 0

    func endTurn(holdingFor group: UInt64, durable: UInt64, failed: [UInt64]) {
        pending.endTurn(holdingFor: group)
        letGo(upTo: durable, failed: failed)
    }

    func release(upTo durable: UInt64, failed: [UInt64]) {
        releases += 1
        letGo(upTo: durable, failed: failed)
    }

    private func letGo(upTo durable: UInt64, failed: [UInt64]) {
        let count = pending.releasable(upTo: durable)
        for index in 0..<count {
            if pending.isRefused(index, failed: failed) {
                refused.append(pending.replies[index].callID)
            } else {
                sent.append(pending.replies[index].callID)
            }
        }
        guard count > 0 else { return }
        pending.sent(count, bytes: pending.replies[count - 1].bytes.upperBound)
        nextByte = pending.replies.last?.bytes.upperBound ?? 0
    }

    var isHoldingReplies: Bool { pending.isHolding }

    func isHolding(refusedBy group: UInt64) -> Bool { pending.isHolding(refusedBy: group) }
}

@Suite("Replies held for the group that makes them durable")
struct HeldRepliesTests {
    @Test("a reply waits for its group from the writer, and goes when the writer says so")
    func writerGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1, own: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        #expect(mum.sent.isEmpty && held.isWaiting(on: mum))
        held.groupCommitted(1, succeeded: true)
        #expect(mum.sent == [1] && !held.isWaiting(on: mum))
        #expect(held.durableGroup == 1)
    }

    @Test("a group handed to the writer but committed by the loop lets go the replies of earlier turns too")
    func loopCommitsAGroupOthersWaitFor() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        let dad = Replies()
        // Turn 1: mum's write is queued in group 1 and handed to the writer, which is slow to wake.
        mum.reply(1, seen: 1, own: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        #expect(mum.sent.isEmpty)
        // Turn 2: nothing else is queued, so the loop commits group 1 itself; dad's read saw it.
        dad.reply(7)
        held.turnEnded(.committedHere(group: 1, succeeded: true), group: 1, holders: [dad])
        #expect(dad.sent == [7])
        #expect(mum.sent == [1], "mum's reply waited for a group the writer was never going to report")
        #expect(!held.isWaiting(on: mum) && held.durableGroup == 1)
    }

    @Test("a failed group refuses the replies that showed its writes, and only those")
    func failedGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1, own: 1)
        mum.reply(2)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(3, seen: 2, own: 2)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        held.groupCommitted(1, succeeded: false)
        #expect(mum.refused == [1] && mum.sent == [2])
        held.groupCommitted(2, succeeded: true)
        #expect(mum.sent == [2, 3] && mum.refused == [1])
        // Failed by the loop's own commit: refused at the end of the same turn.
        mum.reply(4, seen: 3, own: 3)
        held.turnEnded(.committedHere(group: 3, succeeded: false), group: 3, holders: [mum])
        #expect(mum.refused == [1, 4])
    }

    @Test("replies of later turns keep waiting when an earlier group is done")
    func laterGroupsWait() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(2, seen: 2)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        held.groupCommitted(1, succeeded: true)
        #expect(mum.sent == [1] && held.isWaiting(on: mum))
        held.groupCommitted(2, succeeded: true)
        #expect(mum.sent == [1, 2] && !held.isWaiting(on: mum))
    }

    @Test(
        "a holder that waits across turns is listed once: asked once for each group done, and no more once it is not waiting"
    )
    func listedOnce() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(2, seen: 2)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum, mum])
        held.groupCommitted(1, succeeded: true)
        #expect(mum.releases == 1 && mum.sent == [1] && held.isWaiting(on: mum))
        held.groupCommitted(2, succeeded: true)
        #expect(mum.releases == 2 && mum.sent == [1, 2] && !held.isWaiting(on: mum))
        held.groupCommitted(3, succeeded: true)
        #expect(mum.releases == 2)
    }

    @Test(
        "a reply whose write is in a group that failed is refused even when it waits for a later group, and one whose write is durable is not"
    )
    func refusedByItsOwnGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        let dad = Replies()
        // Both handlers wrote in group 1; while they ran another thread queued group 2, which
        // both saw. Mum's reply waits for group 2, her write is in 1; so is dad's.
        mum.reply(1, seen: 2, own: 1)
        dad.reply(2, seen: 2, own: 1)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum, dad])
        held.groupCommitted(1, succeeded: false)
        #expect(mum.sent.isEmpty && mum.refused.isEmpty, "it waits for group 2 still")
        held.groupCommitted(2, succeeded: true)
        #expect(mum.refused == [1] && dad.refused == [2], "group 1's failure was kept for the replies it refuses")

        // Next: her write in group 3 is durable, the later group 4 she saw fails: she is told the truth.
        mum.reply(3, seen: 4, own: 3)
        held.turnEnded(.handedToWriter, group: 4, holders: [mum])
        held.groupCommitted(3, succeeded: true)
        held.groupCommitted(4, succeeded: false)
        #expect(mum.sent == [3] && mum.refused == [1])
    }

    @Test("a group that fails before the turn that wrote in it ends still refuses that turn's replies")
    func failedBeforeTheTurnEnded() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1, own: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        held.groupCommitted(1, succeeded: true)
        // Turn 2: mum's drink is queued in group 2; another thread's write wakes the writer,
        // which takes group 2 and fails it; the loop hears so before the turn ends.
        mum.reply(2, seen: 2, own: 2)
        held.groupCommitted(2, succeeded: false)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        #expect(mum.sent == [1] && mum.refused == [2], "the drink that was rolled back is not told it was saved")
    }
}
