import WaterCodec
import WaterProtocol

/// The whole decoding path a peer's bytes take, as one function for libFuzzer
/// (`scripts/fuzz frames`) and for the corpus replay in the tests: frames (borrowed from the decoder),
/// then the envelope (a view into an arena used again for every frame, as the server's), then
/// the method's request message, under the limits of calls before login and after.
///
/// Decoding errors are expected and ignored; what must never happen is a crash, a hang, an
/// allocation past the limits, or a message that does not survive re-encoding unchanged.
public enum FrameFuzzing {
    /// The frame limit while fuzzing: small, so oversized frames are reached quickly.
    public static let maximumPayloadLength = 64 * 1024

    /// Runs one input. Its first byte picks how the rest is split into reads (1 to 8 bytes at
    /// a time, or all at once), so every split of the stream gets exercised.
    public static func run(_ data: some Collection<UInt8>) {
        guard let first = data.first else { return }
        let stream = Array(data.dropFirst())
        let chunkLength = first & 0x80 != 0 ? max(stream.count, 1) : Int(first % 8) + 1
        var decoder = FrameDecoder(maximumPayloadLength: maximumPayloadLength)
        let arena = WireArena()
        var index = 0
        do {
            while index < stream.count {
                let end = min(index + chunkLength, stream.count)
                decoder.append(stream[index..<end])
                index = end
                while let frame = try decoder.nextFrameView() {
                    precondition(frame.payload.count <= maximumPayloadLength, "frame over the limit")
                    for limits in [DecodeLimits.beforeLogin, .request] {
                        arena.reset()
                        decodeRequest(frame.payload, arena: arena, limits: limits)
                    }
                    decodeEnvelopes(Array(frame.payload))
                }
            }
            try decoder.finish()
        } catch {
            return  // a framing error ends the connection: nothing more to decode
        }
    }

    /// Starting points for the fuzzer: a call of every method, a compressed frame and a failed
    /// reply, each as a frame behind a split-selecting first byte.
    public static func seedInputs() -> [[UInt8]] {
        let encoder = FrameEncoder(maximumPayloadLength: maximumPayloadLength, compressionThreshold: 32)
        var payloads = MethodTable.shared.methods.enumerated().map { index, method in
            WaterV1.RequestEnvelope(
                callID: UInt64(index + 1), method: method.fullName,
                authToken: Array(repeating: 0xA5, count: 32)
            ).serializedBytes()
        }
        payloads.append(
            WaterV1.RequestEnvelope(
                callID: 1,
                request: WaterV1.LogWaterRequest(
                    entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250, atUnixMs: 1_764_504_000_000)
            ).serializedBytes())
        payloads.append(
            WaterV1.RequestEnvelope(
                callID: 2,
                request: WaterV1.AddTodoRequest(
                    itemID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5f",
                    text: String(repeating: "buy water filters ", count: 4))
            ).serializedBytes())
        payloads.append(
            WaterV1.ResponseEnvelope(
                callID: 3, error: .invalidField("amount_ml", "a drink must be between 1 and 2000 ml")
            )
            .serializedBytes())
        return payloads.enumerated().map { index, payload in
            // The first byte picks the read size (see run(_:)); vary it across seeds.
            [UInt8(index % 9 == 8 ? 0x80 : index % 8)] + ((try? encoder.encode(payload)) ?? [])
        }
    }

    /// The server's path: the envelope as a view, the request read from its payload.
    private static func decodeRequest(_ payload: UnsafeRawBufferPointer, arena: WireArena, limits: DecodeLimits) {
        guard let envelope = try? RequestEnvelopeView(decoding: payload, arena: arena, limits: limits),
            let method = envelope.method,
            let type = GeneratedMessages.byProtoName[method.requestType] as? any WireMessage.Type
        else { return }
        decodeRequest(of: type, from: envelope.payload, arena: arena, limits: limits)
    }

    private static func decodeRequest<Message: WireMessage>(
        of type: Message.Type, from payload: UnsafeRawBufferPointer, arena: WireArena, limits: DecodeLimits
    ) {
        if let message = try? WireCodec.unpack(type, from: payload, arena: arena, limits: limits) {
            checkReencodes(message)
        }
    }

    private static func decodeEnvelopes(_ payload: [UInt8]) {
        if let request = try? WaterV1.RequestEnvelope(serializedBytes: payload) {
            checkReencodes(request)
            if let method = MethodTable.shared.method(named: request.method),
                let type = GeneratedMessages.byProtoName[method.requestType]
            {
                decodeMessage(of: type, from: request.payload)
            }
        }
        if let response = try? WaterV1.ResponseEnvelope(serializedBytes: payload) {
            checkReencodes(response)
        }
    }

    private static func decodeMessage<Message: ProtoMessage>(of type: Message.Type, from bytes: [UInt8]) {
        if let message = try? Message(serializedBytes: bytes) {
            checkReencodes(message)
        }
    }

    /// Decoding what we encoded must give the same bytes again (compared as bytes: a NaN
    /// double is a legal value that is not equal to itself).
    private static func checkReencodes<Message: ProtoMessage>(_ message: Message) {
        let bytes = message.serializedBytes()
        guard let again = try? Message(serializedBytes: bytes) else {
            preconditionFailure("\(Message.protoName) does not decode what it encoded")
        }
        precondition(again.serializedBytes() == bytes, "\(Message.protoName) changed on a round trip")
    }
}
