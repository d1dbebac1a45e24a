/// The append-only journal that makes each write durable before it is acknowledged.
///
/// A file header, then frames; each frame is one group commit's records for this archive:
///
///     header: | "WTRJ" | version u16 | kind u8 | 0 u8 | generation u64 | CRC-32 of the 16 bytes before |
///     frame:  | length u32 | ~length u32 | CRC-32 of payload | payload: (u32 length + JournalRecord)... |
///
/// The length is stored twice (the second time inverted) so a damaged length is recognised as
/// damage and never read as the end of the file. Only the last frame may be torn, by a crash
/// in the middle of its write: a bad frame with no valid frame anywhere after it is cut off;
/// a bad frame followed by a valid one is corruption (etcd's WAL and Redis's AOF draw the same
/// line).
enum JournalFile {
    static let magic = Array("WTRJ".utf8)
    static let version: UInt16 = 1
    static let headerLength = 20
    static let frameHeaderLength = 12
    /// No group commit writes more for one archive; a longer frame is damage, not data.
    static let maximumFrameLength = 16 << 20
    /// A journal is folded into a snapshot long before this; a longer file is refused.
    static let maximumFileLength = 256 << 20

    static func header(kind: ArchiveKind, generation: UInt64) -> [UInt8] {
        let start = magic + BigEndian.bytes(version) + [kind.rawValue, 0] + BigEndian.bytes(generation)
        return start + BigEndian.bytes(Checksum.crc32(start))
    }

    /// One frame holding `records`, each an encoded `JournalRecord`.
    static func frame(records: [[UInt8]]) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(records.reduce(0) { $0 + 4 + $1.count })
        for record in records {
            payload += BigEndian.bytes(UInt32(record.count))
            payload += record
        }
        let length = UInt32(payload.count)
        return BigEndian.bytes(length) + BigEndian.bytes(~length) + BigEndian.bytes(Checksum.crc32(payload)) + payload
    }

    /// What a journal file holds.
    struct Contents {
        var generation: UInt64
        /// Every record of every valid frame, in order.
        var records: [ArraySlice<UInt8>]
        /// Where the valid frames end: the file is cut here when a torn frame follows.
        var validLength: Int
    }

    /// Reads a whole journal file.
    /// - Throws: `.corrupt` for a bad header or a bad frame that is not the last;
    ///   `.unsupportedVersion` for a journal version this code does not know.
    static func read(_ bytes: [UInt8], kind: ArchiveKind, path: String) throws(ArchiveError) -> Contents {
        guard bytes.count >= headerLength, Array(bytes[0..<4]) == magic,
            BigEndian.read(UInt32.self, from: bytes, at: 16) == Checksum.crc32(Array(bytes[0..<16]))
        else { throw ArchiveError(.corrupt, "\(path) has a damaged header") }
        let fileVersion = BigEndian.read(UInt16.self, from: bytes, at: 4)
        guard fileVersion == version else {
            throw ArchiveError(.unsupportedVersion, "\(path) is journal version \(fileVersion); this server reads \(version)")
        }
        guard bytes[6] == kind.rawValue else { throw ArchiveError(.corrupt, "\(path) belongs to another kind of archive") }

        var contents = Contents(generation: BigEndian.read(UInt64.self, from: bytes, at: 8), records: [],
                                validLength: headerLength)
        var offset = headerLength
        while offset < bytes.count {
            guard let payload = validFrame(in: bytes, at: offset) else {
                if hasValidFrame(in: bytes, after: offset) {
                    throw ArchiveError(.corrupt, "\(path) has a damaged record at byte \(offset), with records after it")
                }
                break  // a torn tail: the caller cuts it off
            }
            contents.records += try records(in: payload, path: path, offset: offset)
            offset = payload.endIndex
            contents.validLength = offset
        }
        return contents
    }

    /// The payload of the frame at `offset`, or nil when there is no complete, intact frame.
    private static func validFrame(in bytes: [UInt8], at offset: Int) -> ArraySlice<UInt8>? {
        guard bytes.count - offset >= frameHeaderLength else { return nil }
        let length = BigEndian.read(UInt32.self, from: bytes, at: offset)
        guard BigEndian.read(UInt32.self, from: bytes, at: offset + 4) == ~length, Int(length) <= maximumFrameLength,
            offset + frameHeaderLength + Int(length) <= bytes.count
        else { return nil }
        let payload = bytes[(offset + frameHeaderLength)..<(offset + frameHeaderLength + Int(length))]
        let crc = BigEndian.read(UInt32.self, from: bytes, at: offset + 8)
        return payload.withUnsafeBytes { Checksum.crc32($0) } == crc ? payload : nil
    }

    private static func hasValidFrame(in bytes: [UInt8], after offset: Int) -> Bool {
        var candidate = offset + 1
        while candidate + frameHeaderLength <= bytes.count {
            if validFrame(in: bytes, at: candidate) != nil { return true }
            candidate += 1
        }
        return false
    }

    /// Splits an intact payload into its records. A payload that passed its CRC but does not
    /// split cleanly was written wrong: that is corruption, not a torn write.
    private static func records(in payload: ArraySlice<UInt8>, path: String, offset: Int)
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
