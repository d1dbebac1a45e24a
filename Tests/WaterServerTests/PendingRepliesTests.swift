import Testing

@testable import WaterServer

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
        pending.endTurn(holdingFor: 5)
        #expect(pending.replies.map(\.group) == [3, 5, 4])
        #expect(pending.isHolding(refusedBy: 3) && pending.isHolding(refusedBy: 4))
        #expect(!pending.isHolding(refusedBy: 5), "the reply that waits for group 5 showed no store")
    }

    @Test("replies go in call order: one waiting for a later group holds back those after it")
    func releaseInOrder() {
        var pending = Self.replies([3, nil, 4])
        pending.endTurn(holdingFor: 5)
        #expect(pending.releasable(upTo: 2) == 0)
        #expect(pending.releasable(upTo: 4) == 1)
        #expect(pending.releasable(upTo: 5) == 3)
    }

    @Test("a failed group refuses exactly the replies that showed its writes, not an earlier group's")
    func refusalIsPerGroup() {
        // Call 1 wrote in group 3; call 2 wrote in group 4, queued later in the same turn.
        var pending = Self.replies([3, 4, nil])
        pending.endTurn(holdingFor: 4)
        let count = pending.releasable(upTo: 4)
        #expect(count == 3)
        #expect(!pending.isRefused(0, failed: [4]))
        #expect(pending.isRefused(1, failed: [4]))
        // A reply that did not show the store (an error, a stream's message) is never refused.
        #expect(!pending.isRefused(2, failed: [4]))
        #expect(pending.isRefused(0, failed: [3, 4]))
    }

    @Test("a rewritten refusal no longer shows the store, and moves with the buffer")
    func rewriteAndSend() {
        var pending = Self.replies([3, 3, nil])
        pending.endTurn(holdingFor: 3)
        pending.rewrote(0, at: 0..<7, refused: true)
        pending.rewrote(1, at: 7..<17, refused: false)
        pending.rewrote(2, at: 17..<27, refused: false)
        #expect(!pending.isRefused(0, failed: [3]))
        #expect(pending.isRefused(1, failed: [3]))
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
        pending.endTurn(holdingFor: 2)
        pending.append(2, bytes: 10..<20)
        #expect(pending.releasable(upTo: 9) == 1)
        pending.endTurn(holdingFor: 3)
        #expect(pending.replies.map(\.group) == [2, 3])
        #expect(pending.releasable(upTo: 9) == 2)
    }

    @Test("a reply is refused by the group of its own writes, not by a later one it waited for")
    func refusedByItsOwnWrites() {
        var pending = PendingReplies()
        // It wrote in group 3 and read when group 4 was the newest queued (another thread's).
        pending.append(1, bytes: 0..<10, seen: 4, own: 3...3)
        // It wrote nothing, and read when group 4 was the newest.
        pending.append(2, bytes: 10..<20, seen: 4)
        pending.endTurn(holdingFor: 4)
        #expect(pending.replies.map(\.group) == [4, 4], "both wait for what they saw")
        #expect(pending.releasable(upTo: 3) == 0)
        #expect(!pending.isRefused(0, failed: [4]), "its own write, in group 3, is durable")
        #expect(pending.isRefused(0, failed: [3]))
        #expect(pending.isRefused(1, failed: [4]))
        #expect(!pending.isRefused(1, failed: [3]))
        #expect(pending.isHolding(refusedBy: 3) && pending.isHolding(refusedBy: 4) && !pending.isHolding(refusedBy: 2))
    }

    @Test("a reply whose handler wrote in two groups is refused when either fails")
    func refusedByAnyOfItsGroups() {
        var pending = PendingReplies()
        // A zone change: the diary's write taken into group 3, the account's into group 4.
        pending.append(1, bytes: 0..<10, seen: 4, own: 3...4)
        pending.endTurn(holdingFor: 4)
        #expect(pending.isRefused(0, failed: [3]) && pending.isRefused(0, failed: [4]))
        #expect(!pending.isRefused(0, failed: [2]) && !pending.isRefused(0, failed: [5]))
    }
}
