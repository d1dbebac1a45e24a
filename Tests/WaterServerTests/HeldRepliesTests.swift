import Testing
import WaterStore

@testable import WaterServer

/// A connection's replies as ``HeldReplies`` drives them: made in a turn, tagged at its end with
/// a group, sent in order once that group is durable.
private final class Replies: HoldsReplies {
    private var waiting: [(call: Int, showsWrites: Bool, group: UInt64?)] = []
    private(set) var sent: [Int] = []
    private(set) var refused: [Int] = []

    func reply(_ call: Int, showsWrites: Bool = true) { waiting.append((call, showsWrites, nil)) }

    /// How many times ``HeldReplies`` let its replies go when a group was done.
    private(set) var releases = 0

    func endTurn(holdingFor group: UInt64, durable: UInt64) {
        for index in waiting.indices where waiting[index].group == nil { waiting[index].group = group }
        letGo(upTo: durable, failed: [])
    }

    func release(upTo durable: UInt64, failed: [UInt64]) {
        releases += 1
        letGo(upTo: durable, failed: failed)
    }

    private func letGo(upTo durable: UInt64, failed: [UInt64]) {
        while let first = waiting.first, let group = first.group, group <= durable {
            waiting.removeFirst()
            if first.showsWrites, failed.contains(group) { refused.append(first.call) } else { sent.append(first.call) }
        }
    }

    var isHoldingReplies: Bool { waiting.contains { $0.group != nil } }

    func isHolding(forGroup group: UInt64) -> Bool { (waiting.first?.group ?? .max) <= group }
}

@Suite("Replies held for the group that makes them durable")
struct HeldRepliesTests {
    @Test("a reply waits for its group from the writer, and goes when the writer says so")
    func writerGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1)
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
        mum.reply(1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        #expect(mum.sent.isEmpty)
        // Turn 2: nothing else is queued, so the loop commits group 1 itself; dad's read saw it.
        dad.reply(7, showsWrites: false)
        held.turnEnded(.committedHere(group: 1, succeeded: true), group: 1, holders: [dad])
        #expect(dad.sent == [7])
        #expect(mum.sent == [1], "mum's reply waited for a group the writer was never going to report")
        #expect(!held.isWaiting(on: mum) && held.durableGroup == 1)
    }

    @Test("a failed group refuses the replies that showed its writes, and only those")
    func failedGroup() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1)
        mum.reply(2, showsWrites: false)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(3)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum])
        held.groupCommitted(1, succeeded: false)
        #expect(mum.refused == [1] && mum.sent == [2])
        held.groupCommitted(2, succeeded: true)
        #expect(mum.sent == [2, 3] && mum.refused == [1])
        // Failed by the loop's own commit: refused at the end of the same turn.
        mum.reply(4)
        held.turnEnded(.committedHere(group: 3, succeeded: false), group: 3, holders: [mum])
        #expect(mum.refused == [1, 4])
    }

    @Test("replies of later turns keep waiting when an earlier group is done")
    func laterGroupsWait() {
        var held = HeldReplies<Replies>()
        let mum = Replies()
        mum.reply(1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(2)
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
        mum.reply(1)
        held.turnEnded(.handedToWriter, group: 1, holders: [mum])
        mum.reply(2)
        held.turnEnded(.handedToWriter, group: 2, holders: [mum, mum])
        held.groupCommitted(1, succeeded: true)
        #expect(mum.releases == 1 && mum.sent == [1] && held.isWaiting(on: mum))
        held.groupCommitted(2, succeeded: true)
        #expect(mum.releases == 2 && mum.sent == [1, 2] && !held.isWaiting(on: mum))
        held.groupCommitted(3, succeeded: true)
        #expect(mum.releases == 2)
    }
}
