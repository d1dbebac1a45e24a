import Testing

@testable import WaterCodec
@testable import WaterProtocol

private let reply = WaterV1.LogWaterResponse(
    entry: WaterV1.WaterEntry(
        entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250, atUnixMs: 1_764_504_000_000,
        date: "2025-11-30"),
    day: WaterV1.DaySummary(date: "2025-11-30", amountMl: 250, goalMl: 2000, progress: 0.125, percent: 12))

/// The frame the old path makes of `envelope`: a value, packed into an array, framed into another.
private func oldFrame(_ envelope: WaterV1.ResponseEnvelope, limit: Int = 1 << 20) throws -> [UInt8] {
    try FrameEncoder(maximumPayloadLength: limit).encode(envelope.serializedBytes())
}

/// Every frame in `bytes`, each payload decoded as a reply.
private func replies(in bytes: [UInt8]) throws -> [WaterV1.ResponseEnvelope] {
    var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
    decoder.append(bytes)
    var replies: [WaterV1.ResponseEnvelope] = []
    while let frame = try decoder.nextFrame() {
        replies.append(try WaterV1.ResponseEnvelope(serializedBytes: frame.payload))
    }
    return replies
}

@Suite("FrameWriter")
struct FrameWriterTests {
    let writer = FrameWriter(maximumPayloadLength: 1 << 20)

    @Test("writes a reply straight into the output, byte for byte the frame of the old path", arguments: [true, false])
    func replyFrame(endOfStream: Bool) throws {
        var output: [UInt8] = [0xEE]  // what is already waiting stays
        writer.appendReply(callID: 7, response: reply, endOfStream: endOfStream, to: &output, arena: WireArena())
        let old = try oldFrame(WaterV1.ResponseEnvelope(callID: 7, response: reply, endOfStream: endOfStream))
        #expect(output == [0xEE] + old)
    }

    @Test("writes errors, and replies given as values, as the old path did")
    func errorsAndValues() throws {
        let arena = WireArena()
        var output: [UInt8] = []
        let error = WaterError.invalidField("amount_ml", "a drink must be between 1 and 2000 ml")
        writer.appendReply(callID: 3, error: error, to: &output, arena: arena)
        let value = WaterV1.ResponseEnvelope(callID: 4, response: WaterV1.GetTodayResponse())
        writer.appendReply(value, to: &output, arena: arena)
        #expect(try output == oldFrame(WaterV1.ResponseEnvelope(callID: 3, error: error)) + oldFrame(value))
    }

    @Test("appends one reply after another to the same output with one arena")
    func manyReplies() throws {
        let arena = WireArena()
        var output: [UInt8] = []
        for callID in UInt64(1)...100 {
            writer.appendReply(callID: callID, response: WaterV1.SetGoalResponse(), to: &output, arena: arena)
        }
        #expect(try replies(in: output).map(\.callID) == Array(1...100))
    }

    @Test("sends RESOURCE_EXHAUSTED instead of a reply over the frame limit")
    func tooLarge() throws {
        let small = FrameWriter(maximumPayloadLength: 100)
        var output: [UInt8] = []
        small.appendReply(callID: 5, response: reply, to: &output, arena: WireArena())
        let sent = try replies(in: output)
        #expect(sent.count == 1)
        #expect(sent.first?.callID == 5)
        #expect(sent.first?.statusCode == .resourceExhausted)
        let envelope = WaterV1.ResponseEnvelope(callID: 5, response: reply)
        #expect(throws: FrameError.frameTooLarge(length: envelope.serializedBytes().count, limit: 100)) {
            var refused: [UInt8] = []
            try small.append(envelope, to: &refused, arena: WireArena())
        }
    }

    @Test("compresses a large reply, which decodes to the same")
    func compressesLargeReplies() throws {
        let items = (0..<2000).map { WaterV1.TodoItem(itemID: "item-\($0 * 7919 % 10007)", text: "buy \($0) filters") }
        let list = WaterV1.ListTodosResponse(items: items)
        var output: [UInt8] = []
        writer.appendReply(callID: 8, response: list, to: &output, arena: WireArena())
        #expect(output[0] == FrameFlags.compressed.rawValue)
        #expect(output.count < list.serializedBytes().count / 2)
        let sent = try #require(try replies(in: output).first)
        #expect(try sent.response(as: WaterV1.ListTodosResponse.self) == list)
    }

    @Test("sends uncompressed a payload that would compress past the ratio every receiver refuses")
    func keepsToTheRatio() throws {
        let payload = [UInt8](repeating: 0x61, count: 200_000)  // deflate: ~1000 to 1
        var output: [UInt8] = []
        try withBytes(of: payload) { (bytes) throws(FrameError) in try writer.append(payload: bytes, to: &output) }
        #expect(output[0] == 0)
        #expect(output.count == FrameDecoder.headerLength + payload.count)
    }
}
