import WaterCodec
import WaterProtocol
import WaterStore

/// One connection's replies on their way to the socket: framed into one buffer as they are
/// made, in call order, each held until the group of the log that makes what it shows durable
/// is (``PendingReplies`` says which group), then handed on. A value with no socket, as
/// SwiftNIO's `PendingWritesManager` is: owned by its ``Connection`` and touched on its loop
/// only; ``HeldReplies`` says when groups are durable, and the tests drive it event by event.
///
/// When a group fails, the replies that showed its writes are rewritten in place as refusals
/// before any of them leaves: a reply never shows a write that is not on disk.
struct ReplyQueue {
    /// The framed replies not handed on yet: those waiting for their group, then this turn's.
    private var sink: ReplySink
    /// Where each reply's bytes are in ``sink``, and the group it waits for.
    private var pending = PendingReplies()

    init(writer: FrameWriter, arena: WireArena) {
        sink = ReplySink(writer: writer, arena: arena)
    }

    /// How the replies are framed (its frame limit, compression).
    var writer: FrameWriter { sink.writer }
    /// How many bytes wait: the replies of this turn and those waiting for their group.
    var count: Int { sink.output.count }
    var isEmpty: Bool { sink.output.isEmpty }
    /// Whether a reply waits for a group (its turn has ended).
    var isHolding: Bool { pending.isHolding }

    /// Whether a reply waits that `outcome` refuses.
    func isHolding(refusedBy outcome: GroupOutcome) -> Bool {
        pending.isHolding(refusedBy: outcome)
    }

    /// A reply of `callID` framed now by `write`: it shows no write of its own, and waits for the
    /// group its turn ends with. Returns the refusal it carried, if it is one (for the log).
    @discardableResult
    mutating func add(_ callID: UInt64, _ write: (inout ReplySink) -> Void) -> WaterError? {
        let start = sink.output.count
        write(&sink)
        pending.append(callID, bytes: start..<sink.output.count)
        return sink.refusal
    }

    /// A reply of `callID`, framed beforehand, that shows only durable writes (a read off the
    /// loop, handed over once what it saw is durable): it waits for no group.
    mutating func addDurable(_ callID: UInt64, framed bytes: [UInt8]) {
        let start = sink.output.count
        sink.reply(framed: bytes)
        pending.appendDurable(callID, bytes: start..<sink.output.count)
    }

    /// A reply of `callID` framed now by `write`, a handler on the loop that read and wrote the
    /// archives: it waits for the group `seen` returns once it has answered (the newest queued
    /// then, its own writes included), and is refused if a group loses one of its own writes
    /// (`own` returns them), or, when it wrote nothing, if a group it could have seen fails.
    mutating func add(
        _ callID: UInt64, seen: () -> UInt64, own: () -> OwnWrites?, _ write: (inout ReplySink) -> Void
    ) -> WaterError? {
        let start = sink.output.count
        write(&sink)
        pending.append(callID, bytes: start..<sink.output.count, seen: seen(), own: own())
        return sink.refusal
    }

    /// The turn ended with everything queued in `group` or earlier: the replies made in it wait
    /// for the group they saw, or for `group`; they could have seen writes from `seenFrom` on.
    mutating func endTurn(holdingFor group: UInt64, seenFrom: UInt64) {
        pending.endTurn(holdingFor: group, seenFrom: seenFrom)
    }

    /// Lets go the replies whose group is `durable` or older, in order, each as it was made, or
    /// as a refusal when it showed writes a group in `failed` lost. Returns how many bytes from
    /// the front may go now (hand them on with ``move(_:to:)`` or ``bytes(upTo:)`` and
    /// ``sent(_:)``), or nil when no reply may.
    mutating func release(upTo durable: UInt64, failed: [GroupOutcome]) -> Int? {
        let count = pending.releasable(upTo: durable)
        guard count > 0 else { return nil }
        if !failed.isEmpty, (0..<count).contains(where: { pending.isRefused($0, failed: failed) }) {
            refuse(count, failed: failed)
        }
        return pending.replies[count - 1].bytes.upperBound
    }

    /// The first `end` bytes, for a layer that takes a copy (TLS): the buffer itself, not a copy
    /// of it, when they are all of it. Pass it straight on, so that it is unshared again before
    /// ``sent(_:)`` empties the buffer.
    func bytes(upTo end: Int) -> [UInt8] {
        end == sink.output.count ? sink.output : Array(sink.output[0..<end])
    }

    /// Moves the first `end` bytes to the end of `output` (the buffer itself when they are all
    /// of it and nothing else waits there: no copy), and forgets them with their replies.
    mutating func move(_ end: Int, to output: inout PendingWrites) {
        guard output.isEmpty, end == sink.output.count else {
            output.append(sink.output[0..<end])
            return sent(end)
        }
        // The buffer goes whole, and the output's emptied one takes its place.
        output.take(&sink.output)
        sink.output.removeAll(keepingCapacity: sink.output.capacity <= 1 << 20)
        forgetReplies(through: end)
    }

    /// The first `end` bytes were handed on: they and their replies are forgotten, and what is
    /// left moves to the front.
    mutating func sent(_ end: Int) {
        if end == sink.output.count {
            sink.output.removeAll(keepingCapacity: sink.output.capacity <= 1 << 20)
        } else {
            sink.output.removeSubrange(0..<end)
        }
        forgetReplies(through: end)
    }

    /// The replies within the first `end` bytes are gone; the others' bytes move to the front.
    private mutating func forgetReplies(through end: Int) {
        pending.sent(pending.replies.firstIndex { $0.bytes.upperBound > end } ?? pending.replies.count, bytes: end)
    }

    /// What a reply that showed a write which was not stored says instead.
    static let refusal = WaterError(
        .internal,
        "the server could not save this (its disk refused the write), so nothing was changed; try again, "
            + "and tell an admin if it keeps failing")

    /// The first `count` replies go out, but those that showed writes a group in `failed` lost
    /// say instead that nothing was saved.
    private mutating func refuse(_ count: Int, failed: [GroupOutcome]) {
        let refusal = Self.refusal
        var rebuilt = ReplySink(writer: sink.writer, arena: sink.arena)
        for (index, reply) in pending.replies.enumerated() {
            let start = rebuilt.output.count
            let isRefused = index < count && pending.isRefused(index, failed: failed)
            if isRefused {
                rebuilt.reply(reply.callID, error: refusal)
            } else {
                rebuilt.output += sink.output[reply.bytes]
            }
            pending.rewrote(index, at: start..<rebuilt.output.count, refused: isRefused)
        }
        sink.output = rebuilt.output
    }
}
