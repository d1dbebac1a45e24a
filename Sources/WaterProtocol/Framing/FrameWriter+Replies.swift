import CProtobufC
import CWaterProto
import WaterCodec

// The server's replies, written as frames onto a connection's output: the ResponseEnvelope is
// a protobuf-c struct in the arena whose `payload` points at the response, packed into the
// arena too, so a reply costs no array of its own. protobuf-c's envelope structs are touched
// here only (and in RequestEnvelopeView, the other direction).
extension FrameWriter {
    /// Appends the frame of a reply that carries `response`: the only reply of a unary call
    /// (`endOfStream`, with an OK status) or one message of a stream (no status). A reply over
    /// the frame limit becomes RESOURCE_EXHAUSTED, which is what the client gets instead.
    @inlinable package func appendReply<Response: WireMessage>(
        callID: UInt64, response: Response, endOfStream: Bool = true, to output: inout [UInt8], arena: WireArena
    ) {
        let payload = WireCodec.packed(WireCodec.build(response, in: arena), in: arena)
        appendReply(callID: callID, payload: payload, endOfStream: endOfStream, to: &output, arena: arena)
    }

    /// The same, for a response packed before (``Encoded``'s bytes: a board many calls share).
    package func appendReply(
        callID: UInt64, payload: UnsafeRawBufferPointer, endOfStream: Bool, to output: inout [UInt8], arena: WireArena
    ) {
        let envelope = arena.allocate(byteCount: MemoryLayout<Water__V1__ResponseEnvelope>.stride)
            .bindMemory(to: Water__V1__ResponseEnvelope.self, capacity: 1)
        water__v1__response_envelope__init(envelope)
        envelope.pointee.call_id = callID
        // protobuf-c's data pointer is not const, but packing never writes through it.
        envelope.pointee.payload = ProtobufCBinaryData(
            len: payload.count,
            data: payload.isEmpty
                ? nil : UnsafeMutablePointer(mutating: payload.baseAddress!.assumingMemoryBound(to: UInt8.self)))
        envelope.pointee.end_of_stream = endOfStream ? 1 : 0
        if endOfStream {
            let status = arena.allocate(byteCount: MemoryLayout<Water__V1__Status>.stride)
                .bindMemory(to: Water__V1__Status.self, capacity: 1)
            water__v1__status__init(status)  // code OK, no message: packs to an empty Status
            envelope.pointee.status = status
        }
        appendReplyOrRefusal(
            UnsafeRawPointer(envelope).assumingMemoryBound(to: ProtobufCMessage.self), callID: callID, to: &output,
            arena: arena)
    }

    /// Appends the last reply of a call that failed.
    package func appendReply(callID: UInt64, error: WaterError, to output: inout [UInt8], arena: WireArena) {
        appendReply(WaterV1.ResponseEnvelope(callID: callID, error: error), to: &output, arena: arena)
    }

    /// Appends any reply made as a value (what ``WaterV1/ResponseEnvelope`` handlers return).
    package func appendReply(_ envelope: WaterV1.ResponseEnvelope, to output: inout [UInt8], arena: WireArena) {
        appendReplyOrRefusal(WireCodec.build(envelope, in: arena), callID: envelope.callID, to: &output, arena: arena)
    }

    private func appendReplyOrRefusal(
        _ envelope: UnsafePointer<ProtobufCMessage>, callID: UInt64, to output: inout [UInt8], arena: WireArena
    ) {
        do {
            try append(envelope, to: &output)
        } catch {
            // A reply over the frame limit: say so instead of sending what the client would refuse.
            let tooLarge = WaterV1.ResponseEnvelope(
                callID: callID, error: WaterError(.resourceExhausted, "the reply is too large to send"))
            // Over a limit too small for even a status, nothing can be sent.
            try? append(WireCodec.build(tooLarge, in: arena), to: &output)
        }
    }
}
