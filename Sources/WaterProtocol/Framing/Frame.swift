import WaterCodec

/// One message on the wire: a flags byte, then the payload (a protobuf-encoded envelope).
public struct Frame: Hashable, Sendable {
    public var flags: FrameFlags
    /// The payload as the envelope's bytes; inflated already when the frame was compressed.
    public var payload: [UInt8]

    public init(flags: FrameFlags = [], payload: [UInt8]) {
        self.flags = flags
        self.payload = payload
    }
}

/// The frame's first byte. Bit 0 says the payload is zlib-compressed; bits 1-7 are reserved
/// and must be 0, so that a later version can give them a meaning safely.
public struct FrameFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The payload on the wire is a zlib (RFC 1950) stream.
    public static let compressed = FrameFlags(rawValue: 1 << 0)

    /// The bits this version defines.
    public static let known: FrameFlags = [.compressed]
}

/// Why a byte stream is not a valid sequence of frames. Every case ends the connection: after
/// a bad frame there is no way to find where the next one starts.
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The header announces a payload longer than the limit; nothing of it was buffered.
    case frameTooLarge(length: Int, limit: Int)
    /// The flags byte has reserved bits set.
    case reservedFlags(UInt8)
    /// The stream ended inside a frame header.
    case truncatedHeader(received: Int)
    /// The stream ended inside a frame payload.
    case truncatedPayload(expected: Int, received: Int)
    /// A compressed payload inflates past the limit.
    case inflatedTooLarge(limit: Int)
    /// A compressed payload inflates past `maximumRatio` times its length on the wire.
    case compressionRatioExceeded(compressedLength: Int, maximumRatio: Int)
    /// A compressed payload is not a valid zlib stream.
    case corruptCompressedPayload(ZlibError)

    public var description: String {
        switch self {
        case .frameTooLarge(let length, let limit):
            "frame payload of \(length) bytes is over the limit of \(limit) bytes"
        case .reservedFlags(let flags):
            "frame flags 0x\(String(flags, radix: 16)) set reserved bits"
        case .truncatedHeader(let received):
            "connection closed inside a frame header (\(received) of \(FrameDecoder.headerLength) bytes)"
        case .truncatedPayload(let expected, let received):
            "connection closed inside a frame payload (\(received) of \(expected) bytes)"
        case .inflatedTooLarge(let limit):
            "compressed frame payload inflates past the limit of \(limit) bytes"
        case .compressionRatioExceeded(let length, let ratio):
            "compressed frame payload of \(length) bytes inflates past \(ratio) times its size"
        case .corruptCompressedPayload(let error):
            "compressed frame payload is corrupt: \(error.message)"
        }
    }
}
