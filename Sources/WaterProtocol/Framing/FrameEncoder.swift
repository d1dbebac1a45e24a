/// Builds frames, each in an array of its own: flags, big-endian length, payload (see
/// ``FrameDecoder`` for the layout). A ``FrameWriter`` with the same limits underneath.
public struct FrameEncoder: Sendable {
    /// The writer with these limits, which appends frames to a buffer used again.
    package let writer: FrameWriter

    /// The largest payload the peer accepts (from the handshake, or the default).
    public var maximumPayloadLength: Int { writer.maximumPayloadLength }
    /// Payloads at least this long are compressed when that makes them smaller; nil: never.
    public var compressionThreshold: Int? { writer.compressionThreshold }

    public init(maximumPayloadLength: Int, compressionThreshold: Int? = 16 * 1024) {
        writer = FrameWriter(maximumPayloadLength: maximumPayloadLength, compressionThreshold: compressionThreshold)
    }

    /// One frame carrying `payload`, compressed when that is worth it.
    /// - Throws: ``FrameError/frameTooLarge(length:limit:)`` when the payload exceeds the limit,
    ///   which the peer would refuse (checked on the uncompressed size, as the peer checks it).
    public func encode(_ payload: [UInt8]) throws(FrameError) -> [UInt8] {
        var frame: [UInt8] = []
        try payload.withUnsafeBufferPointer { (bytes) throws(FrameError) in
            try writer.append(payload: UnsafeRawBufferPointer(bytes), to: &frame)
        }
        return frame
    }

    /// The bytes of a frame whose payload is already in its wire form.
    public static func frame(flags: FrameFlags, wirePayload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(FrameDecoder.headerLength + wirePayload.count)
        FrameWriter.appendHeader(flags: flags, length: wirePayload.count, to: &bytes)
        bytes += wirePayload
        return bytes
    }
}
