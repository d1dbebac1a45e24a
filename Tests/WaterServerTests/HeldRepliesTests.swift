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
    /// (and wrote archive `archive` in `own`), or, with `seen` nil, one that showed no store (an
    /// error).
    func reply(_ call: UInt64, seen: UInt64? = nil, own: UInt64? = nil, archive: UInt64 = 1) {
        pending.append(
            call, bytes: nextByte..<(nextByte + 1), seen: seen, own: own.map { ownWrite($0, archive: archive) })
        nextByte += 1
    }

    /// How many times ``HeldReplies`` let its replies go when a group was done.
    private(set) var releases = 0

    func endTurn(holdingFor group: UInt64, seenFrom: UInt64, durable: UInt64, failed: [GroupOutcome]) {
        pending.endTurn(holdingFor: group, seenFrom: seenFrom)
        letGo(upTo: durable, failed: failed)
    }

    func release(upTo durable: UInt64, failed: [GroupOutcome]) {
        releases += 1
        letGo(upTo: durable, failed: failed)
    }

    private func letGo(upTo durable: UInt64, failed: [GroupOutcome]) {
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

    func isHolding(refusedBy outcome: GroupOutcome) -> Bool { pending.isHolding(refusedBy: outcome) }
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
        held.groupCommitted(GroupOutcome(group: 1))
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
        held.turnEnded(.committedHere(GroupOutcome(group: 1)), group: 1, holders: [dad])
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
        held.groupCommitted(failure(1))
        #expect(mum.refused == [1] && mum.sent == [2])
        held.groupCommitted(GroupOutcome(group: 2))
        #expect(mum.sent == [2, 3] && mum.refused == [1])
        // Failed by the loop's own commit: refused at the end of the same turn.
        mum.reply(4, seen: 3, own: 3)
        held.turnEnded(.committedHere(failure(3)), group: 3, holders: [mum])
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
        held.groupCommitted(GroupOutcome(group: 1))
        #expect(mum.sent == [1] && held.isWaiting(on: mum))
        held.groupCommitted(GroupOutcome(group: 2))
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
        held.groupCommitted(GroupOutcome(group: 1))
        #expect(mum.releases == 1 && mum.sent == [1] && held.isWaiting(on: mum))
        held.groupCommitted(GroupOutcome(group: 2))
        #expect(mum.releases == 2 && mum.sent == [1, 2] && !held.isWaiting(on: mum))
        held.groupCommitted(GroupOutcome(group: 3))
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
        held.groupCommitted(failure(1))
        #expect(mum.sent.isEmpty && mum.refused.isEmpty, "it waits for group 2 still")
        held.groupCommitted(GroupOutcome(group: 2))
        #expect(mum.refused == [1] && dad.refused == [2], "group 1's failure was kept for the replies it refuses")

        // Next: her write in group 3 is durable, the later group 4 she saw fails: she is told the truth.
        mum.reply(3, seen: 4, own: 3)
        held.turnEnded(.handedToWriter, group: 4, holders: [mum])
        held.groupCommitted(GroupOutcome(group: 3))
        held.groupCommitted(failure(4))
        #expect(mum.sent == [3] && mum.refused == [1])
    }

    @Test("a group that fails before the turn that wrote in it ends still refuses that turn's replies")
    func failedBeforeTheTurnEnded() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1, seen: 1, own: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        held.groupCommitted(GroupOutcome(group: 1))
        // Turn 2: mum's drink is queued in group 2; another thread's write wakes the writer,
        // which takes group 2 and fails it; the loop hears so before the turn ends.
        mum.reply(2, seen: 2, own: 2)
        held.groupCommitted(failure(2))
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        #expect(mum.sent == [1] && mum.refused == [2], "the drink that was rolled back is not told it was saved")
    }

    @Test("a read that waited for a durable group is refused when an earlier group it could have seen fails")
    func readRefusedByAnEarlierGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        let dad = Replies()
        // Turn 1: mum's drink is queued in group 1, handed to the writer.
        mum.reply(1, seen: 1, own: 1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        // Turn 2: mum's next drink goes in group 2; dad's read shows both, unsynced.
        mum.reply(2, seen: 2, own: 2)
        dad.reply(3, seen: 2)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum, dad])
        held.groupCommitted(failure(1))
        held.groupCommitted(GroupOutcome(group: 2))
        #expect(mum.refused == [1] && mum.sent == [2])
        #expect(dad.refused == [3], "dad's read showed group 1's drink, which was rolled back")
    }

    @Test("a failure heard mid-turn is kept for the turn's reads that saw its writes before it was rolled back")
    func failureHeardBeforeTheReadsTurnEnded() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        let dad = Replies()
        // Turn 1 ends with groups 1 and 2 queued (another thread's write took group 2).
        mum.reply(1, seen: 2, own: 1)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        // Turn 2: dad reads mum's drink; then the loop hears group 1 failed.
        dad.reply(2, seen: 2)
        held.groupCommitted(failure(1))
        held.turnEnded(.handedToWriter, group: 2, holders: [dad])
        held.groupCommitted(GroupOutcome(group: 2))
        #expect(mum.refused == [1])
        #expect(dad.refused == [2] && dad.sent.isEmpty, "the read showed the drink group 1 lost")
        // Turn 3 began after the loop heard: its reads are not refused by group 1.
        dad.reply(3, seen: 2)
        held.turnEnded(.handedToWriter, group: 2, holders: [dad])
        #expect(dad.sent == [3])
    }

    @Test("a group that lost one archive's stale write refuses only that write's reply")
    func staleWriteRefusesOnlyItsArchive() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        let dad = Replies()
        held.turnEnded(.handedToWriter, group: 1, holders: [])
        held.groupCommitted(GroupOutcome(group: 1))
        // Turn 2: mum's diary (archive 1) and dad's (archive 2) take a drink each in group 3,
        // while the writer syncs group 2, which holds an earlier drink of mum's.
        mum.reply(1, seen: 3, own: 3, archive: 1)
        dad.reply(2, seen: 3, own: 3, archive: 2)
        held.turnEnded(.handedToWriter, group: 3, holders: [mum, dad])
        // Group 2 fails and rolls mum's diary back; group 3's write to it is stale, dad's stored.
        held.groupCommitted(failure(2, archives: [1]))
        held.groupCommitted(failure(3, archives: [1]))
        #expect(mum.refused == [1])
        #expect(dad.sent == [2] && dad.refused.isEmpty, "dad's drink is on disk, and he is told so")
    }
}
