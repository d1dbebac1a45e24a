/// The append-only journal that makes each write durable before it is acknowledged.
///
/// A journal is a fixed-size segment, made full length (zeros) before it is first written, as
/// PostgreSQL's WAL segments are: a header, then frames, then zeros. Each frame is one group
/// commit's records for this archive; the last frame of a journal that was succeeded by the
/// next one is a seal naming it.
///
///     header (version 2, 32 bytes):
///       | "WTRJ" | version u16 | kind u8 | 0 u8 | generation u64 | segment length u32 |
///       | starts after sequence u64 | CRC-32 of the 28 bytes before |
///     frame:
///       | length u32 | ~length u32 | CRC-32 of payload | payload |
///     payload:
///       | 1 | (u32 length + JournalRecord)... |           records
///       | 2 | next generation u64 | last sequence u64 |  seal
///
/// Why fixed size: a journal that was cut short (or grew) no longer has the length its header
/// gives, so truncation is found without a sync of the file's size per write; and an
/// fdatasync over blocks already allocated has no size to update, which makes it cheaper.
/// The header's "starts after" chains each journal to the records before it (the snapshot's,
/// or the previous journal's), so a missing or shortened predecessor is a gap, not silence.
///
/// The length is stored twice (the second time inverted) so a damaged length is recognised as
/// damage and never read as the end of the file. Only the last frame may be torn, by a crash
/// in the middle of its write (the committer writes the next group only after this one is
/// synced): a bad frame with nothing but its own bytes and zeros after it is cut off; a bad
/// frame followed by a valid one, or by bytes past its own end, is corruption (etcd's WAL and
/// Redis's AOF draw the same line).
///
/// Version 1 journals (no segment length, no chaining, no seals, records straight in the
/// payload) are still read; the archive moves to a version 2 journal at its first write.
enum JournalFile {
    static let magic = Array("WTRJ".utf8)
    static let version: UInt16 = 2
    static let readableVersions: ClosedRange<UInt16> = 1...2
    static let headerLength = 32
    static let frameHeaderLength = 12
    /// No group commit writes more for one archive; a longer frame is damage, not data.
    static let maximumFrameLength = 16 << 20
    /// A journal is folded into a snapshot long before this; a longer file is refused.
    static let maximumFileLength = 256 << 20
    /// What a seal frame takes, kept free at the end of every segment.
    static let sealLength = frameHeaderLength + 17

    private enum FrameKind: UInt8 {
        case records = 1
        case seal = 2
    }

    /// A new segment: the header, then zeros up to `length`.
    static func segment(kind: ArchiveKind, generation: UInt64, startsAfter sequence: UInt64, length: Int) -> [UInt8] {
        precondition(length >= headerLength + sealLength && length <= maximumFileLength, "segment length \(length)")
        let start =
            magic + BigEndian.bytes(version) + [kind.rawValue, 0] + BigEndian.bytes(generation)
            + BigEndian.bytes(UInt32(length)) + BigEndian.bytes(sequence)
        return start + BigEndian.bytes(Checksum.crc32(start)) + [UInt8](repeating: 0, count: length - headerLength)
    }

    /// One frame holding `records`, each an encoded `JournalRecord`.
    static func frame(records: [[UInt8]]) -> [UInt8] {
        var payload: [UInt8] = [FrameKind.records.rawValue]
        payload.reserveCapacity(records.reduce(1) { $0 + 4 + $1.count })
        for record in records {
            payload += BigEndian.bytes(UInt32(record.count))
            payload += record
        }
        return frame(payload: payload)
    }

    /// The last frame of a journal: the archive goes on in `nextGeneration`, after record
    /// `lastSequence`.
    static func seal(nextGeneration: UInt64, lastSequence: UInt64) -> [UInt8] {
        frame(payload: [FrameKind.seal.rawValue] + BigEndian.bytes(nextGeneration) + BigEndian.bytes(lastSequence))
    }

    private static func frame(payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return BigEndian.bytes(length) + BigEndian.bytes(~length) + BigEndian.bytes(Checksum.crc32(payload)) + payload
    }

    /// What a journal file holds.
    struct Contents {
        var version: UInt16
        var generation: UInt64
        /// The sequence of the record before this journal's first (version 2; nil for 1).
        var startsAfter: UInt64?
        /// Every record of every valid frame, in order.
        var records: [ArraySlice<UInt8>]
        /// Where the valid frames end.
        var validLength: Int
        /// The seal, when the journal was succeeded by another.
        var seal: (nextGeneration: UInt64, lastSequence: UInt64)?
        /// A torn last write after the valid frames, if any.
        var tornTail: TornTail?
    }

    /// Bytes of a write that did not reach the disk whole: never synced, so never acknowledged.
    struct TornTail: Hashable {
        /// Where it starts (the end of the valid frames) and how many bytes it spans.
        var offset: Int
        var length: Int
        /// How many records its bytes still delimit, when its frame header survived.
        var records: Int?
    }

    /// Reads a whole journal file.
    /// - Throws: `.corrupt` for a bad header, a file whose length is not the one it was made
    ///   with, a bad frame that is not the last, bytes past a torn frame's end, or anything
    ///   after a seal; `.unsupportedVersion` for a journal version this code does not know.
    static func read(_ bytes: [UInt8], kind: ArchiveKind, path: String) throws(ArchiveError) -> Contents {
        guard bytes.count >= 20, Array(bytes[0..<4]) == magic else {
            throw ArchiveError(.corrupt, "\(path) has a damaged header")
        }
        let fileVersion = BigEndian.read(UInt16.self, from: bytes, at: 4)
        let headerLength = fileVersion == 1 ? 20 : Self.headerLength
        guard bytes.count >= headerLength,
            BigEndian.read(UInt32.self, from: bytes, at: headerLength - 4)
                == Checksum.crc32(Array(bytes[0..<(headerLength - 4)]))
        else { throw ArchiveError(.corrupt, "\(path) has a damaged header") }
        guard readableVersions.contains(fileVersion) else {
            throw ArchiveError(
                .unsupportedVersion, "\(path) is journal version \(fileVersion); this server reads \(readableVersions)")
        }
        guard bytes[6] == kind.rawValue else {
            throw ArchiveError(.corrupt, "\(path) belongs to another kind of archive")
        }

        var contents = Contents(
            version: fileVersion, generation: BigEndian.read(UInt64.self, from: bytes, at: 8),
            startsAfter: nil, records: [], validLength: headerLength)
        if fileVersion >= 2 {
            let segmentLength = Int(BigEndian.read(UInt32.self, from: bytes, at: 16))
            guard bytes.count == segmentLength else {
                throw ArchiveError(
                    .corrupt,
                    "\(path) is \(bytes.count) bytes long but was made \(segmentLength) bytes long: "
                        + (bytes.count < segmentLength ? "it was cut short" : "something was added to it"))
            }
            contents.startsAfter = BigEndian.read(UInt64.self, from: bytes, at: 20)
        }
        var offset = headerLength
        while offset < bytes.count, contents.seal == nil, let payload = validFrame(in: bytes, at: offset) {
            if fileVersion == 1 {
                contents.records += try records(in: payload, path: path, offset: offset)
            } else {
                switch payload.first.flatMap(FrameKind.init(rawValue:)) {
                case .records:
                    contents.records += try records(in: payload.dropFirst(), path: path, offset: offset)
                case .seal where payload.count == 17:
                    contents.seal = (
                        BigEndian.read(UInt64.self, from: payload, at: 1),
                        BigEndian.read(UInt64.self, from: payload, at: 9)
                    )
                default:
                    throw ArchiveError(.corrupt, "\(path) has a frame of an unknown kind at byte \(offset)")
                }
            }
            offset = payload.endIndex
            contents.validLength = offset
        }
        contents.tornTail = try tornTail(in: bytes, at: offset, version: fileVersion, path: path)
        if contents.seal != nil, contents.tornTail != nil {
            throw ArchiveError(.corrupt, "\(path) has bytes after its seal, at byte \(offset)")
        }
        return contents
    }

    /// What follows the valid frames: nothing (zeros, or the end of the file), or a torn write.
    private static func tornTail(in bytes: [UInt8], at offset: Int, version: UInt16, path: String)
        throws(ArchiveError) -> TornTail?
    {
        // Version 2 segments end in zeros; version 1 files simply end.
        guard
            let lastByte = version == 1
                ? (offset < bytes.count ? bytes.count - 1 : nil)
                : bytes[offset...].lastIndex(where: { $0 != 0 })
        else { return nil }
        if hasValidFrame(in: bytes, from: offset + 1, through: lastByte) {
            throw ArchiveError(.corrupt, "\(path) has a damaged record at byte \(offset), with records after it")
        }
        var tail = TornTail(offset: offset, length: lastByte + 1 - offset, records: nil)
        // When the torn frame's header reached the disk, its bytes end where it says.
        if bytes.count - offset >= frameHeaderLength {
            let length = Int(BigEndian.read(UInt32.self, from: bytes, at: offset))
            if BigEndian.read(UInt32.self, from: bytes, at: offset + 4) == ~UInt32(length), length <= maximumFrameLength
            {
                guard lastByte < offset + frameHeaderLength + length else {
                    throw ArchiveError(
                        .corrupt, "\(path) has a damaged record at byte \(offset), and bytes past its end")
                }
                let payload = bytes[(offset + frameHeaderLength)...].prefix(length).dropFirst(version == 1 ? 0 : 1)
                tail.records = recordCount(in: payload)
            }
        }
        return tail
    }

    /// How many length-prefixed records the bytes of a torn payload still delimit.
    private static func recordCount(in payload: ArraySlice<UInt8>) -> Int {
        var count = 0
        var index = payload.startIndex
        while payload.endIndex - index >= 4 {
            let length = Int(BigEndian.read(UInt32.self, from: payload, at: index - payload.startIndex))
            if length == 0 { break }
            count += 1
            index += 4 + length
        }
        return count
    }

    /// The payload of the frame at `offset`, or nil when there is no complete, intact frame.
    static func validFrame(in bytes: [UInt8], at offset: Int) -> ArraySlice<UInt8>? {
        guard bytes.count - offset >= frameHeaderLength else { return nil }
        let length = BigEndian.read(UInt32.self, from: bytes, at: offset)
        guard BigEndian.read(UInt32.self, from: bytes, at: offset + 4) == ~length, Int(length) <= maximumFrameLength,
            offset + frameHeaderLength + Int(length) <= bytes.count
        else { return nil }
        let payload = bytes[(offset + frameHeaderLength)..<(offset + frameHeaderLength + Int(length))]
        let crc = BigEndian.read(UInt32.self, from: bytes, at: offset + 8)
        return payload.withUnsafeBytes { Checksum.crc32($0) } == crc ? payload : nil
    }

    private static func hasValidFrame(in bytes: [UInt8], from start: Int, through last: Int) -> Bool {
        var candidate = start
        while candidate <= last, candidate + frameHeaderLength <= bytes.count {
            if validFrame(in: bytes, at: candidate) != nil { return true }
            candidate += 1
        }
        return false
    }

    /// Splits an intact payload into its records. A payload that passed its CRC but does not
    /// split cleanly was written wrong: that is corruption, not a torn write.
    static func records(in payload: ArraySlice<UInt8>, path: String, offset: Int)
        throws(ArchiveError) -> [ArraySlice<UInt8>]
    {
        var records: [ArraySlice<UInt8>] = []
        var index = payload.startIndex
        while index < payload.endIndex {
            guard payload.endIndex - index >= 4 else {
                throw ArchiveError(.corrupt, "\(path) has a malformed frame at byte \(offset)")
            }
            let length = Int(BigEndian.read(UInt32.self, from: payload, at: index - payload.startIndex))
            guard payload.endIndex - index - 4 >= length else {
                throw ArchiveError(.corrupt, "\(path) has a malformed frame at byte \(offset)")
            }
            records.append(payload[(index + 4)..<(index + 4 + length)])
            index += 4 + length
        }
        return records
    }
}
