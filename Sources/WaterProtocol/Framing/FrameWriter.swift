import CProtobufC
import WaterCodec

/// Writes frames onto the end of an output buffer that is used again and again (a
/// connection's): the 5-byte header (see ``FrameDecoder`` for the layout), then the payload,
/// packed by protobuf-c straight into the buffer. ``FrameEncoder`` is the same for callers
/// that want each frame in an array of its own.
package struct FrameWriter: Sendable {
    /// The largest payload the peer accepts (from the handshake, or the default).
    package let maximumPayloadLength: Int
    /// Payloads at least this long are compressed when that makes them smaller; nil: never.
    package let compressionThreshold: Int?

    package init(maximumPayloadLength: Int, compressionThreshold: Int? = 16 * 1024) {
        self.maximumPayloadLength = maximumPayloadLength
        self.compressionThreshold = compressionThreshold
    }

    /// Appends one frame carrying `payload`, compressed when that is worth it.
    /// - Throws: ``FrameError/frameTooLarge(length:limit:)`` when the payload exceeds the limit,
    ///   which the peer would refuse (checked on the uncompressed size, as the peer checks
    ///   it); `output` is then unchanged.
    package func append(payload: UnsafeRawBufferPointer, to output: inout [UInt8]) throws(FrameError) {
        try appendFrame(payloadLength: payload.count, to: &output) { output in
            output.append(contentsOf: payload)
        }
    }

    /// Appends one frame carrying a message struct built in an arena, packed in place.
    /// - Throws: what ``append(payload:to:)`` throws.
    package func append(_ message: UnsafePointer<ProtobufCMessage>, to output: inout [UInt8]) throws(FrameError) {
        try appendFrame(payloadLength: protobuf_c_message_get_packed_size(message), to: &output) { output in
            WireCodec.pack(message, appendingTo: &output)
        }
    }

    /// Appends one frame carrying `message`, built in `arena` and packed in place.
    /// - Throws: what ``append(payload:to:)`` throws.
    @inlinable package func append<Message: WireMessage>(
        _ message: Message, to output: inout [UInt8], arena: WireArena
    ) throws(FrameError) {
        try append(WireCodec.build(message, in: arena), to: &output)
    }

    /// Writes the header, lets `writePayload` append exactly `payloadLength` bytes, then
    /// compresses them in place when that is worth it.
    private func appendFrame(
        payloadLength: Int, to output: inout [UInt8], writePayload: (inout [UInt8]) -> Void
    ) throws(FrameError) {
        guard payloadLength <= maximumPayloadLength else {
            throw .frameTooLarge(length: payloadLength, limit: maximumPayloadLength)
        }
        let start = output.count
        output.reserveCapacity(forAppending: FrameDecoder.headerLength + payloadLength)
        Self.appendHeader(flags: [], length: payloadLength, to: &output)
        writePayload(&output)
        precondition(output.count == start + FrameDecoder.headerLength + payloadLength, "payload length")
        if let threshold = compressionThreshold, payloadLength >= threshold {
            compressPayload(ofFrameAt: start, in: &output)
        }
    }

    /// Replaces the payload of the frame at `start` (the last in `output`) by its zlib stream,
    /// when that is smaller and within the ratio every receiver enforces.
    private func compressPayload(ofFrameAt start: Int, in output: inout [UInt8]) {
        let payloadStart = start + FrameDecoder.headerLength
        var compressed: [UInt8] = []
        output.withUnsafeBytes { bytes in
            Zlib.compress(UnsafeRawBufferPointer(rebasing: bytes[payloadStart...]), appendingTo: &compressed)
        }
        let payloadLength = output.count - payloadStart
        guard compressed.count < payloadLength,
            compressed.count * WireProtocol.maximumCompressionRatio >= payloadLength
        else { return }
        output.removeSubrange(start...)
        Self.appendHeader(flags: .compressed, length: compressed.count, to: &output)
        output += compressed
    }

    /// Appends a frame header: flags, then the payload's length as a big-endian u32.
    package static func appendHeader(flags: FrameFlags, length: Int, to output: inout [UInt8]) {
        let length = UInt32(length)
        output.append(flags.rawValue)
        output.append(UInt8(length >> 24))
        output.append(UInt8(length >> 16 & 0xFF))
        output.append(UInt8(length >> 8 & 0xFF))
        output.append(UInt8(length & 0xFF))
    }
}
