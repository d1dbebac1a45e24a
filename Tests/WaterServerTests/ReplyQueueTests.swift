import Testing
import WaterCodec
import WaterProtocol
import WaterStore

@testable import WaterServer

/// One connection's replies as ``ReplyQueue`` holds them, event by event with no socket: framed
/// as they are made, held for their group, handed on in call order, refused when the group
/// whose writes they showed failed.
@Suite("A connection's reply queue")
struct ReplyQueueTests {
    static let writer = FrameWriter(maximumPayloadLength: 1 << 20)
    static let saved = WaterError(.internal, "could not save")

    static func queue() -> ReplyQueue {
        ReplyQueue(writer: writer, arena: WireArena(initialBlockSize: 1024))
    }

    /// A reply of `callID` framed on its own, as the queue frames it.
    static func frame(_ callID: UInt64, _ error: WaterError? = nil) -> [UInt8] {
        var sink = ReplySink(writer: writer, arena: WireArena(initialBlockSize: 1024))
        if let error {
            sink.reply(callID, error: error)
        } else {
            sink.reply(ResponseEnvelope(callID: callID, response: WaterV1.GetTodayResponse()))
        }
        return sink.output
    }

    /// The call ids of the replies in `bytes`, in order, and whether each is a refusal.
    static func replies(in bytes: [UInt8]) throws -> [(callID: UInt64, refused: Bool)] {
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        decoder.append(bytes)
        var found: [(UInt64, Bool)] = []
        while let frame = try decoder.nextFrame() {
            let envelope = try WaterV1.ResponseEnvelope(serializedBytes: frame.payload)
            found.append((envelope.callID, envelope.statusCode == .internal))
        }
        #expect(!decoder.isInsideFrame, "a reply was cut")
        return found
    }

    /// Hands on what may go once `durable` is done, as a plaintext connection does.
    static func release(_ queue: inout ReplyQueue, upTo durable: UInt64, failed: [GroupOutcome] = []) -> [UInt8] {
        var output = PendingWrites()
        if let end = queue.release(upTo: durable, failed: failed) { queue.move(end, to: &output) }
        return written(&output)
    }

    /// Everything `output` holds, through a socket that takes it all.
    static func written(_ output: inout PendingWrites) -> [UInt8] {
        var written: [UInt8] = []
        let wroteAll = output.write { bytes in
            written += bytes
            return bytes.count
        }
        #expect(wroteAll && output.isEmpty)
        return written
    }

    @Test("a reply is framed as it is made, and held until its turn's group is durable")
    func heldForItsGroup() {
        var queue = Self.queue()
        queue.add(1) { $0.reply(ResponseEnvelope(callID: 1, response: WaterV1.GetTodayResponse())) }
        #expect(queue.count == Self.frame(1).count && !queue.isHolding)
        let untagged = queue.release(upTo: 9, failed: [])
        #expect(untagged == nil, "a reply of a turn not ended waits")
        queue.endTurn(holdingFor: 3, seenFrom: 3)
        #expect(queue.isHolding)
        let early = Self.release(&queue, upTo: 2)
        #expect(early.isEmpty)
        let sent = Self.release(&queue, upTo: 3)
        #expect(sent == Self.frame(1))
        #expect(queue.isEmpty && !queue.isHolding)
    }

    @Test("a handler's reply waits for the group it saw; the replies after it wait behind it")
    func callOrder() throws {
        var queue = Self.queue()
        let refusal = queue.add(1, seen: { 5 }, own: { nil }) { $0.reply(1, WaterV1.GetTodayResponse()) }
        #expect(refusal == nil)
        queue.add(2) { $0.reply(2, error: Self.saved) }
        queue.endTurn(holdingFor: 4, seenFrom: 4)
        let early = Self.release(&queue, upTo: 4)
        #expect(early.isEmpty, "call 2 waits behind call 1, whose group is 5")
        let sent = try Self.replies(in: Self.release(&queue, upTo: 5))
        #expect(sent.map(\.callID) == [1, 2])
    }

    @Test("the refusal a reply carried is handed back, for the log")
    func refusalForTheLog() {
        var queue = Self.queue()
        let refusal = queue.add(7) { $0.reply(7, error: Self.saved) }
        #expect(refusal == Self.saved)
        let framed = queue.add(8) { $0.reply(framed: Self.frame(8)) }
        #expect(framed == nil)
    }

    @Test("a failed group turns the replies that showed its writes into refusals, and only those")
    func failedGroup() throws {
        var queue = Self.queue()
        _ = queue.add(1, seen: { 3 }, own: { ownWrite(3) }) { $0.reply(1, WaterV1.GetTodayResponse()) }
        _ = queue.add(2, seen: { 4 }, own: { ownWrite(4) }) { $0.reply(2, WaterV1.GetTodayResponse()) }
        queue.add(3) { $0.reply(ResponseEnvelope(callID: 3, response: WaterV1.GetTodayResponse())) }
        queue.endTurn(holdingFor: 4, seenFrom: 4)
        let sent = try Self.replies(in: Self.release(&queue, upTo: 4, failed: [failure(4)]))
        #expect(sent.map(\.callID) == [1, 2, 3])
        #expect(sent.map(\.refused) == [false, true, false], "group 3 was durable; call 3 showed no write")
        #expect(queue.isEmpty)
    }

    @Test("a read's reply made off the loop, handed over once what it saw is durable, waits for no group")
    func durableReply() throws {
        var queue = Self.queue()
        queue.addDurable(1, framed: Self.frame(1))
        queue.endTurn(holdingFor: 9, seenFrom: 1)
        let sent = try Self.replies(in: Self.release(&queue, upTo: 0, failed: [failure(9)]))
        #expect(sent.map(\.callID) == [1] && sent.map(\.refused) == [false])
        #expect(queue.isEmpty)
    }

    @Test("a refusal rewritten while later replies wait leaves them whole, to go when their group does")
    func refusalKeepsTheRest() throws {
        var queue = Self.queue()
        _ = queue.add(1, seen: { 3 }, own: { ownWrite(3) }) { $0.reply(1, WaterV1.GetTodayResponse()) }
        queue.endTurn(holdingFor: 3, seenFrom: 3)
        _ = queue.add(2, seen: { 5 }, own: { ownWrite(5) }) { $0.reply(2, WaterV1.GetTodayResponse()) }
        queue.endTurn(holdingFor: 5, seenFrom: 5)
        let refused = try Self.replies(in: Self.release(&queue, upTo: 3, failed: [failure(3)]))
        #expect(refused.map(\.refused) == [true])
        #expect(queue.count == Self.frame(2).count && queue.isHolding(refusedBy: failure(5)))
        let rest = try Self.replies(in: Self.release(&queue, upTo: 5))
        #expect(rest.map(\.callID) == [2])
    }

    @Test("what goes through TLS is the front of the buffer; what stays moves to the front")
    func throughTLS() {
        var queue = Self.queue()
        queue.add(1) { $0.reply(framed: Self.frame(1)) }
        queue.endTurn(holdingFor: 1, seenFrom: 1)
        queue.add(2) { $0.reply(framed: Self.frame(2)) }
        queue.endTurn(holdingFor: 2, seenFrom: 2)
        let end = queue.release(upTo: 1, failed: [])
        #expect(end == Self.frame(1).count)
        #expect(queue.bytes(upTo: end ?? 0) == Self.frame(1))
        queue.sent(end ?? 0)
        #expect(queue.bytes(upTo: queue.count) == Self.frame(2))
        let rest = queue.release(upTo: 2, failed: [])
        #expect(rest == Self.frame(2).count)
    }

    @Test("everything going to an empty output is handed over whole; otherwise it is appended")
    func moveWholeOrAppended() {
        var queue = Self.queue()
        var output = PendingWrites()
        output.append([9, 9])
        queue.add(1) { $0.reply(framed: Self.frame(1)) }
        queue.endTurn(holdingFor: 1, seenFrom: 1)
        if let end = queue.release(upTo: 1, failed: []) { queue.move(end, to: &output) }
        #expect(output.count == 2 + Self.frame(1).count)
        let written = Self.written(&output)
        #expect(written == [9, 9] + Self.frame(1))
        queue.add(2) { $0.reply(framed: Self.frame(2)) }
        queue.endTurn(holdingFor: 2, seenFrom: 2)
        if let end = queue.release(upTo: 2, failed: []) { queue.move(end, to: &output) }
        #expect(output.count == Self.frame(2).count && queue.isEmpty)
    }
}
