/// One group commit in the shared log: the records of every archive the group wrote, each
/// archive's records as one chunk with its own checksum, and a directory saying whose chunk is
/// where. The directory is written twice, at the start and at the end, each copy with its own
/// checksum, so that one damaged spot still says whose records the frame held.
///
///     header (12 bytes):
///       | body length B u32 | ~B u32 | entry count N u16 | kind u8 | 0 u8 |
///     body (B bytes):
///       | directory: N x entry | CRC-32 of header[8..<12] + directory |
///       | chunks: each a run of (length u32, record) |
///       | directory again | header[8..<12] again | CRC-32 of both |
///     entry (28 bytes):
///       | archive key u64 | first sequence u64 | records u32 | chunk length u32 | chunk CRC-32 u32 |
///
/// All integers big-endian. A seal-free design: a segment's header names where the previous
/// segment's frames end (``LogSegment``), so a shortened predecessor is found without writing
/// to it again.
///
/// What a reader can tell from a damaged frame (``decode(_:at:end:)``): a damaged length is
/// recognised (it is stored twice, once inverted) and recomputed from an intact directory; a
/// damaged directory is read from its other copy; a damaged chunk fails only its own checksum,
/// which names the one archive it belonged to. Only when both copies of the directory are lost
/// is the frame's owner unknown.
enum LogFrame {
    static let headerLength = 12
    static let entryLength = 28
    /// What a frame adds besides its entries and chunks: the two checksums and the copy of the
    /// count and kind.
    static let fixedOverhead = headerLength + 4 + 8
    /// No group commit writes more than this; a longer frame is damage, not data.
    static let maximumBodyLength = 64 << 20

    enum Kind: UInt8 {
        case records = 1
    }

    /// One archive's part of a frame, as the directory describes it.
    struct Entry: Hashable, Sendable, RecordRun {
        var key: UInt64
        var firstSequence: UInt64
        var recordCount: Int
        var chunkLength: Int
        var chunkCRC: UInt32
    }

    /// The length of a frame holding `entries` whose chunks add up to `chunkBytes`.
    static func length(entries: Int, chunkBytes: Int) -> Int {
        fixedOverhead + 2 * entries * entryLength + chunkBytes
    }

    // MARK: Writing

    /// Appends a frame to `frame` (which it empties first) from the pending records of a group:
    /// `chunks` in the order the archives first wrote, each with its records' bytes in
    /// `records`, already length-prefixed. Allocates nothing once `frame` has grown to size.
    static func encode(
        chunks: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)],
        records: UnsafeRawBufferPointer, into frame: inout [UInt8]
    ) {
        frame.removeAll(keepingCapacity: true)
        let chunkBytes = chunks.reduce(0) { $0 + $1.bytes.count }
        let total = length(entries: chunks.count, chunkBytes: chunkBytes)
        frame.reserveCapacity(total)
        let body = UInt32(total - headerLength)
        frame.appendBigEndian(body)
        frame.appendBigEndian(~body)
        let countAndKind = UInt32(UInt16(chunks.count)) << 16 | UInt32(Kind.records.rawValue) << 8
        frame.appendBigEndian(countAndKind)
        let directoryStart = frame.count
        for chunk in chunks {
            frame.appendBigEndian(chunk.key)
            frame.appendBigEndian(chunk.firstSequence)
            frame.appendBigEndian(UInt32(chunk.recordCount))
            frame.appendBigEndian(UInt32(chunk.bytes.count))
            frame.appendBigEndian(Checksum.crc32(UnsafeRawBufferPointer(rebasing: records[chunk.bytes])))
        }
        let directoryEnd = frame.count
        frame.appendBigEndian(
            frame.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[8..<directoryEnd])) })
        for chunk in chunks {
            frame.append(contentsOf: UnsafeRawBufferPointer(rebasing: records[chunk.bytes]))
        }
        // The copy: the entries, then the count and kind, then one checksum over both.
        let copyStart = frame.count
        frame.append(contentsOf: frame[directoryStart..<directoryEnd])
        frame.appendBigEndian(countAndKind)
        let copyEnd = frame.count
        frame.appendBigEndian(
            frame.withUnsafeBytes { Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[copyStart..<copyEnd])) })
        assert(frame.count == total)
    }

    /// Appends one record, length-prefixed, to the bytes of a chunk being gathered.
    static func appendRecord(_ record: [UInt8], to chunk: inout [UInt8]) {
        chunk.appendBigEndian(UInt32(record.count))
        chunk.append(contentsOf: record)
    }

    // MARK: Reading

    /// A frame as read back: its extent, and each entry with where its chunk lies and whether
    /// the chunk's checksum holds.
    struct Decoded {
        var offset: Int
        var end: Int
        var entries: [(entry: Entry, chunk: Range<Int>, verified: Bool)]
        /// Whether anything in the frame failed (a copy of the directory, the length, a chunk).
        var isPristine: Bool
    }

    /// What is at `offset`.
    enum Found {
        /// Zeros: space never written.
        case unused
        /// A frame whose directory reads (its chunks may still fail their checksums).
        case frame(Decoded)
        /// Neither: damage, or the bytes of a write a crash cut short.
        case unreadable
    }

    /// Reads the frame at `offset` of a segment whose bytes end at `end`.
    static func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int) -> Found {
        guard end - offset >= headerLength else {
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<end]).firstNonZero() == nil ? .unused : .unreadable
        }
        if UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + headerLength)]).firstNonZero() == nil {
            return .unused
        }
        let body = Int(bytes.loadBigEndian(UInt32.self, at: offset))
        let lengthHolds =
            UInt32(body) == ~bytes.loadBigEndian(UInt32.self, at: offset + 4)
            && body <= maximumBodyLength && offset + headerLength + body <= end
        guard
            let (entries, isPrimary) = primaryDirectory(bytes, at: offset, end: end)
                ?? (lengthHolds ? copiedDirectory(bytes, endingAt: offset + headerLength + body) : nil)
        else { return .unreadable }
        let chunkBytes = entries.reduce(0) { $0 + $1.chunkLength }
        let frameEnd = offset + length(entries: entries.count, chunkBytes: chunkBytes)
        guard frameEnd <= end, chunkBytes <= maximumBodyLength else { return .unreadable }
        var decoded = Decoded(
            offset: offset, end: frameEnd, entries: [],
            isPristine: isPrimary && lengthHolds && offset + headerLength + body == frameEnd
                && copiedDirectory(bytes, endingAt: frameEnd)?.entries == entries)
        var chunkStart = offset + headerLength + entries.count * entryLength + 4
        for entry in entries {
            let chunk = chunkStart..<(chunkStart + entry.chunkLength)
            let verified =
                Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[chunk])) == entry.chunkCRC
                && recordRanges(in: UnsafeRawBufferPointer(rebasing: bytes[chunk]))?.count == entry.recordCount
            decoded.isPristine = decoded.isPristine && verified
            decoded.entries.append((entry, chunk, verified))
            chunkStart = chunk.upperBound
        }
        return .frame(decoded)
    }

    /// The directory at the frame's start, when its checksum holds.
    private static func primaryDirectory(_ bytes: UnsafeRawBufferPointer, at offset: Int, end: Int) -> (
        entries: [Entry], isPrimary: Bool
    )? {
        let countAndKind = bytes.loadBigEndian(UInt32.self, at: offset + 8)
        guard countAndKind & 0xFF == 0, (countAndKind >> 8) & 0xFF == UInt32(Kind.records.rawValue) else {
            return nil
        }
        let count = Int(countAndKind >> 16)
        let directoryEnd = offset + headerLength + count * entryLength
        guard count > 0, directoryEnd + 4 <= end,
            Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<directoryEnd]))
                == bytes.loadBigEndian(UInt32.self, at: directoryEnd)
        else { return nil }
        return (entries(bytes, from: offset + headerLength, count: count), true)
    }

    /// The copy of the directory that ends the frame ending at `frameEnd`, when it holds.
    private static func copiedDirectory(_ bytes: UnsafeRawBufferPointer, endingAt frameEnd: Int) -> (
        entries: [Entry], isPrimary: Bool
    )? {
        guard frameEnd - headerLength >= 8 else { return nil }
        let countAndKind = bytes.loadBigEndian(UInt32.self, at: frameEnd - 8)
        guard countAndKind & 0xFF == 0, (countAndKind >> 8) & 0xFF == UInt32(Kind.records.rawValue) else {
            return nil
        }
        let count = Int(countAndKind >> 16)
        let start = frameEnd - 8 - count * entryLength
        guard count > 0, start >= headerLength,
            Checksum.crc32(UnsafeRawBufferPointer(rebasing: bytes[start..<(frameEnd - 4)]))
                == bytes.loadBigEndian(UInt32.self, at: frameEnd - 4)
        else { return nil }
        return (entries(bytes, from: start, count: count), false)
    }

    private static func entries(_ bytes: UnsafeRawBufferPointer, from start: Int, count: Int) -> [Entry] {
        (0..<count).map { index in
            let at = start + index * entryLength
            return Entry(
                key: bytes.loadBigEndian(UInt64.self, at: at),
                firstSequence: bytes.loadBigEndian(UInt64.self, at: at + 8),
                recordCount: Int(bytes.loadBigEndian(UInt32.self, at: at + 16)),
                chunkLength: Int(bytes.loadBigEndian(UInt32.self, at: at + 20)),
                chunkCRC: bytes.loadBigEndian(UInt32.self, at: at + 24))
        }
    }

    /// The records of a chunk (each length-prefixed), or nil when the lengths do not add up.
    static func recordRanges(in chunk: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < chunk.count {
            guard chunk.count - index >= 4 else { return nil }
            let length = Int(chunk.loadBigEndian(UInt32.self, at: index))
            guard chunk.count - index - 4 >= length else { return nil }
            ranges.append((index + 4)..<(index + 4 + length))
            index += 4 + length
        }
        return ranges
    }
}

extension [UInt8] {
    /// Appends `value` big-endian, without an intermediate array.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian integer at `offset`; the caller has checked that the bytes are there.
    func loadBigEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension UnsafeRawBufferPointer {
    /// The offset of the first byte from `start` on that is not zero, or nil: eight bytes at a
    /// time, since most of a log segment is zeros waiting to be written.
    func firstNonZero(from start: Int = 0) -> Int? {
        var index = start
        while index < count, (index & 7) != 0 {
            if self[index] != 0 { return index }
            index += 1
        }
        while index + 8 <= count {
            if loadUnaligned(fromByteOffset: index, as: UInt64.self) != 0 { break }
            index += 8
        }
        while index < count {
            if self[index] != 0 { return index }
            index += 1
        }
        return nil
    }

    /// The offset after the last byte that is not zero (0 when all are).
    func endOfNonZero() -> Int {
        var index = count
        while index > 0, (index & 7) != 0 {
            if self[index - 1] != 0 { return index }
            index -= 1
        }
        while index >= 8, loadUnaligned(fromByteOffset: index - 8, as: UInt64.self) == 0 {
            index -= 8
        }
        while index > 0 {
            if self[index - 1] != 0 { return index }
            index -= 1
        }
        return 0
    }
}

/// Records numbered one after another: a commit's, a frame entry's, a chunk's.
protocol RecordRun {
    var firstSequence: UInt64 { get }
    var recordCount: Int { get }
}

extension RecordRun {
    /// The number of the run's last record (a run holds one at least).
    var lastSequence: UInt64 { firstSequence + UInt64(recordCount) - 1 }
}
