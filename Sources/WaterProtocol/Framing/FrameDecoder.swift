/// Splits a byte stream into frames.
///
///     +-------+-----------------+------------------------------+
///     | flags | length (BE u32) | payload                      |
///     | 1 B   | 4 B             | `length` bytes               |
///     +-------+-----------------+------------------------------+
///
/// Bytes arrive in whatever pieces the socket delivers (``append(_:)``); ``nextFrame()`` returns
/// each complete frame, or nil until more bytes are needed. The length is checked against
/// `maximumPayloadLength` as soon as the header is complete, *before* any payload is buffered,
/// and a compressed payload is inflated with the same cap.
public struct FrameDecoder: Sendable {
    public static let headerLength = 5

    /// The largest payload accepted, on the wire and after inflating.
    public let maximumPayloadLength: Int

    private var buffer: [UInt8] = []
    private var readIndex = 0

    public init(maximumPayloadLength: Int) {
        precondition(maximumPayloadLength > 0 && maximumPayloadLength <= Int(UInt32.max))
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Bytes received but not yet returned as a frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Whether a frame has started but not finished: what a frame deadline is measured against.
    public var isInsideFrame: Bool { bufferedByteCount > 0 }

    /// Adds bytes as they came off the connection.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            // Drop what was consumed, so the buffer stays about one frame long.
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    /// - Throws: ``FrameError`` for an oversized length, reserved flags or a bad compressed
    ///   payload. After an error the stream cannot be resynchronised: close the connection.
    public mutating func nextFrame() throws(FrameError) -> Frame? {
        guard bufferedByteCount >= Self.headerLength else { return nil }
        let flags = FrameFlags(rawValue: buffer[readIndex])
        guard flags.isSubset(of: .known) else { throw .reservedFlags(flags.rawValue) }
        let length = announcedPayloadLength()
        guard length <= maximumPayloadLength else {
            throw .frameTooLarge(length: length, limit: maximumPayloadLength)
        }
        guard bufferedByteCount >= Self.headerLength + length else { return nil }

        let start = readIndex + Self.headerLength
        let wirePayload = buffer[start..<(start + length)]
        readIndex = start + length
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        guard flags.contains(.compressed) else {
            return Frame(flags: flags, payload: Array(wirePayload))
        }
        do {
            return Frame(flags: flags, payload: try Zlib.decompress(wirePayload, limit: maximumPayloadLength))
        } catch {
            switch error {
            case .tooLarge(let limit): throw .inflatedTooLarge(limit: limit)
            case .corrupt(let cause): throw .corruptCompressedPayload(cause)
            }
        }
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

    /// The big-endian length in the header at `readIndex`; the header must be buffered.
    private func announcedPayloadLength() -> Int {
        buffer[(readIndex + 1)..<(readIndex + Self.headerLength)].reduce(0) { $0 << 8 | Int($1) }
    }
}
