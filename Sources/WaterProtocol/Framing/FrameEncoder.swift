/// Builds frames: flags, big-endian length, payload (see ``FrameDecoder`` for the layout).
public struct FrameEncoder: Sendable {
    /// The largest payload the peer accepts (from the handshake, or the default).
    public let maximumPayloadLength: Int
    /// Payloads at least this long are compressed when that makes them smaller; nil: never.
    public let compressionThreshold: Int?

    public init(maximumPayloadLength: Int, compressionThreshold: Int? = 16 * 1024) {
        self.maximumPayloadLength = maximumPayloadLength
        self.compressionThreshold = compressionThreshold
    }

    /// One frame carrying `payload`, compressed when that is worth it.
    /// - Throws: ``FrameError/frameTooLarge(length:limit:)`` when the payload exceeds the limit,
    ///   which the peer would refuse (checked on the uncompressed size, as the peer checks it).
    public func encode(_ payload: [UInt8]) throws(FrameError) -> [UInt8] {
        guard payload.count <= maximumPayloadLength else {
            throw .frameTooLarge(length: payload.count, limit: maximumPayloadLength)
        }
        if let threshold = compressionThreshold, payload.count >= threshold {
            let compressed = Zlib.compress(payload)
            if compressed.count < payload.count {
                return Self.frame(flags: .compressed, wirePayload: compressed)
            }
        }
        return Self.frame(flags: [], wirePayload: payload)
    }

    /// The bytes of a frame whose payload is already in its wire form.
    public static func frame(flags: FrameFlags, wirePayload: [UInt8]) -> [UInt8] {
        let length = UInt32(wirePayload.count)
        var bytes: [UInt8] = [flags.rawValue]
        bytes.reserveCapacity(FrameDecoder.headerLength + wirePayload.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += wirePayload
        return bytes
    }
}
