import Testing
import WaterStore

@testable import WaterServer

/// A call's own write: to archive `archive` (in its epoch `epoch`), queued in `group`.
func ownWrite(_ group: UInt64, archive: UInt64 = 1, epoch: UInt64 = 0) -> OwnWrites {
    OwnWrites(OwnWrites.Write(group: group, archive: ArchiveEpoch(archive: archive, epoch: epoch)))
}

/// Group `group` failed, losing the writes of `archives` (each in epoch `epoch`).
func failure(_ group: UInt64, archives: [UInt64] = [1], epoch: UInt64 = 0) -> GroupOutcome {
    GroupOutcome(group: group, lost: archives.map { ArchiveEpoch(archive: $0, epoch: epoch) })
}

/// One connection's replies as ``PendingReplies`` keeps them, without a socket: which group each
/// waits for, which may go, and which are refused when a group fails.
@Suite("A connection's pending replies")
struct PendingRepliesTests {
    /// Replies of 10 bytes each, one after the other in the buffer.
    private static func replies(_ seen: [UInt64?]) -> PendingReplies {
        var pending = PendingReplies()
        for (index, group) in seen.enumerated() {
            pending.append(UInt64(index + 1), bytes: (index * 10)..<(index * 10 + 10), seen: group)
        }
        return pending
    }

    @Test("a reply that showed the store waits for the group it saw; any other for the turn's newest")
    func groupsAtTheEndOfATurn() {
        var pending = Self.replies([3, nil, 4])
        #expect(!pending.isHolding)
        pending.endTurn(holdingFor: 5, seenFrom: 3)
        #expect(pending.replies.map(\.group) == [3, 5, 4])
        #expect(pending.isHolding(refusedBy: failure(3)) && pending.isHolding(refusedBy: failure(4)))
        #expect(!pending.isHolding(refusedBy: failure(5)), "the reply that waits for group 5 showed no store")
        #expect(!pending.isHolding(refusedBy: GroupOutcome(group: 4)), "a durable group refuses nothing")
    }

    @Test("replies go in call order: one waiting for a later group holds back those after it")
    func releaseInOrder() {
        var pending = Self.replies([3, nil, 4])
        pending.endTurn(holdingFor: 5, seenFrom: 3)
        #expect(pending.releasable(upTo: 2) == 0)
        #expect(pending.releasable(upTo: 4) == 1)
        #expect(pending.releasable(upTo: 5) == 3)
    }

    @Test("a failed group refuses exactly the replies that showed its writes, not an earlier group's")
    func refusalIsPerGroup() {
        // Call 1 wrote in group 3; call 2 wrote in group 4, queued later in the same turn.
        var pending = PendingReplies()
        pending.append(1, bytes: 0..<10, seen: 3, own: ownWrite(3))
        pending.append(2, bytes: 10..<20, seen: 4, own: ownWrite(4))
        pending.append(3, bytes: 20..<30)
        pending.endTurn(holdingFor: 4, seenFrom: 3)
        let count = pending.releasable(upTo: 4)
        #expect(count == 3)
        #expect(!pending.isRefused(0, failed: [failure(4)]))
        #expect(pending.isRefused(1, failed: [failure(4)]))
        // A reply that did not show the store (an error, a stream's message) is never refused.
        #expect(!pending.isRefused(2, failed: [failure(4)]))
        #expect(pending.isRefused(0, failed: [failure(3), failure(4)]))
    }

    @Test("a rewritten refusal no longer shows the store, and moves with the buffer")
    func rewriteAndSend() {
        var pending = Self.replies([3, 3, nil])
        pending.endTurn(holdingFor: 3, seenFrom: 3)
        pending.rewrote(0, at: 0..<7, refused: true)
        pending.rewrote(1, at: 7..<17, refused: false)
        pending.rewrote(2, at: 17..<27, refused: false)
        #expect(!pending.isRefused(0, failed: [failure(3)]))
        #expect(pending.isRefused(1, failed: [failure(3)]))
        pending.sent(2, bytes: 17)
        #expect(pending.replies.count == 1)
        #expect(pending.replies[0].callID == 3)
        #expect(pending.replies[0].bytes == 0..<10)
        #expect(pending.isHolding)
        pending.sent(1, bytes: 10)
        #expect(pending.isEmpty)
        #expect(!pending.isHolding)
    }

    @Test("a reply made in the next turn is not tagged until that turn ends")
    func nextTurn() {
        var pending = Self.replies([nil])
        pending.endTurn(holdingFor: 2, seenFrom: 1)
        pending.append(2, bytes: 10..<20)
        #expect(pending.releasable(upTo: 9) == 1)
        pending.endTurn(holdingFor: 3, seenFrom: 2)
        #expect(pending.replies.map(\.group) == [2, 3])
        #expect(pending.releasable(upTo: 9) == 2)
    }

    @Test("a reply is refused by the group of its own writes, not by a later one it waited for")
    func refusedByItsOwnWrites() {
        var pending = PendingReplies()
        // It wrote in group 3 and read when group 4 was the newest queued (another thread's).
        pending.append(1, bytes: 0..<10, seen: 4, own: ownWrite(3))
        // It wrote nothing, and read when group 4 was the newest.
        pending.append(2, bytes: 10..<20, seen: 4)
        pending.endTurn(holdingFor: 4, seenFrom: 4)
        #expect(pending.replies.map(\.group) == [4, 4], "both wait for what they saw")
        #expect(pending.releasable(upTo: 3) == 0)
        #expect(!pending.isRefused(0, failed: [failure(4)]), "its own write, in group 3, is durable")
        #expect(pending.isRefused(0, failed: [failure(3)]))
        #expect(pending.isRefused(1, failed: [failure(4)]))
        #expect(!pending.isRefused(1, failed: [failure(3)]), "group 3 had finished when the turn began")
        #expect(
            pending.isHolding(refusedBy: failure(3)) && pending.isHolding(refusedBy: failure(4))
                && !pending.isHolding(refusedBy: failure(2)))
    }

    @Test("a reply whose handler wrote in two groups is refused when either loses its write")
    func refusedByAnyOfItsGroups() {
        var pending = PendingReplies()
        // A zone change: the diary's write taken into group 3, the account's (archive 2) into 4.
        var own = ownWrite(3)
        own.add(OwnWrites.Write(group: 4, archive: ArchiveEpoch(archive: 2, epoch: 0)))
        pending.append(1, bytes: 0..<10, seen: 4, own: own)
        pending.endTurn(holdingFor: 4, seenFrom: 3)
        #expect(pending.isRefused(0, failed: [failure(3)]) && pending.isRefused(0, failed: [failure(4, archives: [2])]))
        #expect(!pending.isRefused(0, failed: [failure(2)]) && !pending.isRefused(0, failed: [failure(5)]))
        #expect(!pending.isRefused(0, failed: [failure(4, archives: [1])]), "group 4 lost the diary's stale write only")
    }

    @Test(
        "a group that lost only another archive's stale write, or this archive's in an older epoch, refuses no durable write in it"
    )
    func staleWriteOfAnotherArchive() {
        var pending = PendingReplies()
        // Call 1 wrote archive 2 in group 5; call 2 wrote archive 1 in group 5 after archive 1
        // rolled back (epoch 1); call 3 wrote archive 1 in group 5 before that (epoch 0).
        pending.append(1, bytes: 0..<10, seen: 5, own: ownWrite(5, archive: 2))
        pending.append(2, bytes: 10..<20, seen: 5, own: ownWrite(5, archive: 1, epoch: 1))
        pending.append(3, bytes: 20..<30, seen: 5, own: ownWrite(5, archive: 1, epoch: 0))
        pending.endTurn(holdingFor: 5, seenFrom: 4)
        // Group 4 failed and rolled archive 1 back; group 5 refused archive 1's stale write.
        let failed = [failure(4), failure(5, archives: [1], epoch: 0)]
        #expect(!pending.isRefused(0, failed: failed), "archive 2's write in group 5 is durable")
        #expect(!pending.isRefused(1, failed: failed), "written after the roll-back: durable")
        #expect(pending.isRefused(2, failed: failed), "the stale write was not stored")
    }

    @Test(
        "a reply that wrote nothing is refused when any group it could have seen fails, not only the one it waited for")
    func readRefusedByAnEarlierGroup() {
        var pending = PendingReplies()
        // A read made when groups 3 (being synced) and 4 (gathering) held unsynced writes.
        pending.append(1, bytes: 0..<10, seen: 4)
        pending.endTurn(holdingFor: 4, seenFrom: 3)
        #expect(pending.isRefused(0, failed: [failure(3)]), "it could have shown group 3's rolled-back write")
        #expect(pending.isRefused(0, failed: [failure(4)]))
        #expect(!pending.isRefused(0, failed: [failure(2)]), "group 2 had finished before the turn began")
        #expect(pending.isHolding(refusedBy: failure(3)))
    }
}
