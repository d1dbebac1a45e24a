import WaterCodec

/// Splits a byte stream into frames.
///
///     +-------+-----------------+------------------------------+
///     | flags | length (BE u32) | payload                      |
///     | 1 B   | 4 B             | `length` bytes               |
///     +-------+-----------------+------------------------------+
///
/// Bytes arrive in whatever pieces the socket delivers (``append(_:)``); ``nextFrameView()``
/// returns each complete frame, borrowed from the decoder's buffers, or nil until more bytes
/// are needed (``nextFrame()`` copies it instead). The length is checked against
/// `maximumPayloadLength` as soon as the header is complete, *before* any payload is buffered,
/// and a compressed payload is inflated with the same cap and the ratio cap.
///
/// One buffer holds what was received and one what was inflated; both are used again for
/// every frame, and given back after a frame larger than ``retainedCapacity``.
public struct FrameDecoder: Sendable {
    public static let headerLength = 5
    /// The most memory each buffer keeps between frames.
    public static let retainedCapacity = 64 * 1024

    /// The largest payload accepted, on the wire and after inflating. A connection lowers it
    /// until its peer has logged in.
    public var maximumPayloadLength: Int
    /// How many times its compressed length a compressed payload may inflate to.
    public let maximumCompressionRatio: Int

    private var received = GrowableBytes()
    private var readIndex = 0
    private var inflated = GrowableBytes()

    public init(
        maximumPayloadLength: Int, maximumCompressionRatio: Int = WireProtocol.maximumCompressionRatio
    ) {
        precondition(maximumPayloadLength > 0 && maximumPayloadLength <= Int(UInt32.max))
        precondition(maximumCompressionRatio >= 1)
        self.maximumPayloadLength = maximumPayloadLength
        self.maximumCompressionRatio = maximumCompressionRatio
    }

    /// Bytes received but not yet returned as a frame.
    public var bufferedByteCount: Int { received.count - readIndex }

    /// Whether a frame has started but not finished: what a frame deadline is measured against.
    public var isInsideFrame: Bool { bufferedByteCount > 0 }

    /// Adds bytes as they came off the connection. Ends the last view handed out.
    @inlinable public mutating func append(_ bytes: some Collection<UInt8>) {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if appended == nil { Array(bytes).withUnsafeBytes { append($0) } }
    }

    /// The same, for bytes in memory already (a read buffer): no generic code on the way.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        dropConsumedBytes()
        if readIndex > 0, readIndex >= received.count / 2 {
            // Drop what was consumed, so the buffer stays about one frame long.
            received.removeFirst(readIndex)
            readIndex = 0
        }
        received.append(contentsOf: bytes)
    }

    /// The next complete frame, its payload borrowed: valid until the next call on this decoder
    /// (which may overwrite or move it), or nil when more bytes are needed.
    /// - Throws: ``FrameError`` for an oversized length, reserved flags or a bad compressed
    ///   payload. After an error the stream cannot be resynchronised: close the connection.
    public mutating func nextFrameView() throws(FrameError) -> FrameView? {
        dropConsumedBytes()
        if inflated.capacity > Self.retainedCapacity { inflated.removeAll(retainingAtMost: Self.retainedCapacity) }
        guard bufferedByteCount >= Self.headerLength else { return nil }
        let flags = FrameFlags(rawValue: received[readIndex])
        guard flags.isSubset(of: .known) else { throw .reservedFlags(flags.rawValue) }
        let length = announcedPayloadLength()
        guard length <= maximumPayloadLength else {
            throw .frameTooLarge(length: length, limit: maximumPayloadLength)
        }
        guard bufferedByteCount >= Self.headerLength + length else { return nil }

        let start = readIndex + Self.headerLength
        readIndex = start + length
        let wirePayload = UnsafeRawBufferPointer(rebasing: received.bytes[start..<readIndex])
        guard flags.contains(.compressed) else { return FrameView(flags: flags, payload: wirePayload) }
        inflated.removeAll(retainingAtMost: Self.retainedCapacity)
        do {
            try Zlib.decompress(
                wirePayload, into: &inflated, limit: maximumPayloadLength, maximumRatio: maximumCompressionRatio)
        } catch {
            switch error {
            case .tooLarge(let limit): throw .inflatedTooLarge(limit: limit)
            case .ratioExceeded(let ratio):
                throw .compressionRatioExceeded(compressedLength: length, maximumRatio: ratio)
            case .corrupt(let cause): throw .corruptCompressedPayload(cause)
            }
        }
        return FrameView(flags: flags, payload: inflated.bytes)
    }

    /// The next complete frame, its payload copied; nil when more bytes are needed.
    /// - Throws: what ``nextFrameView()`` throws.
    public mutating func nextFrame() throws(FrameError) -> Frame? {
        try nextFrameView().map { Frame(flags: $0.flags, payload: Array($0.payload)) }
    }

    /// Called when the peer closed its side: the stream must end between frames.
    /// - Throws: ``FrameError/truncatedHeader(received:)`` or
    ///   ``FrameError/truncatedPayload(expected:received:)`` when it ended inside one.
    public func finish() throws(FrameError) {
        let pending = bufferedByteCount
        guard pending > 0 else { return }
        guard pending >= Self.headerLength else { throw .truncatedHeader(received: pending) }
        throw .truncatedPayload(expected: announcedPayloadLength(), received: pending - Self.headerLength)
    }

    /// Empties the buffer once every byte in it has been returned (not before: the last view
    /// points into it until this call).
    private mutating func dropConsumedBytes() {
        guard readIndex > 0, readIndex == received.count else { return }
        received.removeAll(retainingAtMost: Self.retainedCapacity)
        readIndex = 0
    }

    /// The big-endian length in the header at `readIndex`; the header must be buffered.
    private func announcedPayloadLength() -> Int {
        Int(received[readIndex + 1]) << 24 | Int(received[readIndex + 2]) << 16 | Int(received[readIndex + 3]) << 8
            | Int(received[readIndex + 4])
    }
}

/// A frame whose payload is borrowed from a ``FrameDecoder``: valid until the decoder's next
/// call. Decode it (a ``RequestEnvelopeView`` copies it into its arena) or copy it.
public struct FrameView {
    public let flags: FrameFlags
    /// The payload as the envelope's bytes; inflated already when the frame was compressed.
    public let payload: UnsafeRawBufferPointer
}
