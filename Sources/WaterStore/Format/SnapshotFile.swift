import WaterCodec

/// The file a snapshot is kept in, `snapshot` in its archive's folder:
///
///     +--------+---------+------+---+----------------+-------------+-----------+-----------+---+--------+------+
///     | "WTRS" | version | kind | 0 | inflated (u32) | last record | log       | log       | 0 | CRC-32 | zlib |
///     |        | u16     | u8   |   |                | u64         | segment   | offset    |   |        | body |
///     | 4 B    | 2 B     | 1 B  | 1 | 4 B            | 8 B         | u64       | u32       | 4 | 4 B    | ...  |
///     +--------+---------+------+---+----------------+-------------+-----------+-----------+---+--------+------+
///
/// All integers big-endian. The stamp (last record, log position) says what the snapshot
/// holds: every record of its archive up to the last one, and so every chunk of it in the
/// shared log up to that position; the loader goes on from there. It is in the header, in the
/// clear, so the store knows where every archive stands without inflating any of them.
///
/// The CRC-32 covers the header before it and the compressed body, so any flipped bit anywhere
/// is caught; the inflated length is checked against a cap before inflating, and the inflate
/// itself stops at that length.
///
/// Snapshots of the per-archive journals (format 1 of the data directory) began "WTRA" and had
/// no stamp: a 16-byte header of magic, version, kind, 0, inflated length and CRC-32. They are
/// read to migrate them, and written only by tests that make old directories.
enum SnapshotFile {
    static let magic = Array("WTRS".utf8)
    static let legacyMagic = Array("WTRA".utf8)
    static let headerLength = 40
    static let legacyHeaderLength = 16
    /// No archive of a household comes near this; a larger file is refused, not loaded.
    static let maximumLength = 64 << 20

    /// What a snapshot holds: its archive's records up to `lastSequence`, and its chunks in the
    /// shared log up to `position`.
    struct Stamp: Hashable, Sendable {
        var lastSequence: UInt64
        var position: LogPosition
    }

    static func encode(body: [UInt8], version: UInt16, kind: ArchiveKind, stamp: Stamp) -> [UInt8] {
        let compressed = Zlib.compress(body)
        var header = magic
        header.appendBigEndian(version)
        header += [kind.rawValue, 0]
        header.appendBigEndian(UInt32(body.count))
        header.appendBigEndian(stamp.lastSequence)
        header.appendBigEndian(stamp.position.generation)
        header.appendBigEndian(UInt32(stamp.position.offset))
        header.appendBigEndian(UInt32(0))
        header.appendBigEndian(Checksum.crc32(header + compressed))
        return header + compressed
    }

    /// A snapshot in the format of the per-archive journals, as old directories have them.
    static func encodeLegacy(body: [UInt8], version: UInt16, kind: ArchiveKind) -> [UInt8] {
        let compressed = Zlib.compress(body)
        var header = legacyMagic
        header.appendBigEndian(version)
        header += [kind.rawValue, 0]
        header.appendBigEndian(UInt32(body.count))
        header.appendBigEndian(Checksum.crc32(header + compressed))
        return header + compressed
    }

    /// Whether the file is a snapshot of format 1 (no stamp).
    static func isLegacy(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && Array(bytes[0..<4]) == legacyMagic
    }

    /// The stamp of a snapshot whose checksum holds, without inflating it; nil when the file
    /// is not an intact snapshot of this format.
    static func stamp(of bytes: [UInt8]) -> Stamp? {
        guard bytes.count >= headerLength, Array(bytes[0..<4]) == magic, checksumHolds(bytes, headerLength) else {
            return nil
        }
        return bytes.withUnsafeBytes { raw in
            Stamp(
                lastSequence: raw.loadBigEndian(UInt64.self, at: 12),
                position: LogPosition(
                    generation: raw.loadBigEndian(UInt64.self, at: 20),
                    offset: Int(raw.loadBigEndian(UInt32.self, at: 28))))
        }
    }

    private static func checksumHolds(_ bytes: [UInt8], _ headerLength: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            let stored = raw.loadBigEndian(UInt32.self, at: headerLength - 4)
            let header = Checksum.crc32(UnsafeRawBufferPointer(rebasing: raw[0..<(headerLength - 4)]))
            return Checksum.crc32(UnsafeRawBufferPointer(rebasing: raw[headerLength...]), continuing: header) == stored
        }
    }

    /// The version, the inflated body and the stamp of a snapshot file (no stamp for one of
    /// format 1).
    /// - Throws: ``ArchiveError`` `.corrupt` for a bad magic, kind, checksum or zlib stream,
    ///   `.unsupportedVersion` for a version outside `versions`, `.tooLarge` past the cap.
    static func decode(_ bytes: [UInt8], kind: ArchiveKind, versions: ClosedRange<UInt16>, path: String)
        throws(ArchiveError) -> (version: UInt16, body: [UInt8], stamp: Stamp?)
    {
        let isLegacy = isLegacy(bytes)
        let headerLength = isLegacy ? legacyHeaderLength : headerLength
        guard bytes.count >= headerLength, isLegacy || Array(bytes[0..<4]) == magic else {
            throw ArchiveError(.corrupt, "\(path) is not a water archive (bad magic or too short)")
        }
        guard checksumHolds(bytes, headerLength) else { throw ArchiveError(.corrupt, "\(path) fails its checksum") }
        let version = BigEndian.read(UInt16.self, from: bytes, at: 4)
        guard versions.contains(version) else {
            throw ArchiveError(
                .unsupportedVersion, "\(path) is format version \(version); this server reads \(versions)")
        }
        guard bytes[6] == kind.rawValue else {
            throw ArchiveError(.corrupt, "\(path) holds another kind of archive (\(bytes[6]))")
        }
        let inflatedLength = Int(BigEndian.read(UInt32.self, from: bytes, at: 8))
        guard inflatedLength <= maximumLength else {
            throw ArchiveError(
                .tooLarge, "\(path) would inflate to \(inflatedLength) bytes, over the cap of \(maximumLength)")
        }
        do {
            let body = try Zlib.decompress(bytes[headerLength...], limit: inflatedLength)
            guard body.count == inflatedLength else {
                throw ArchiveError(
                    .corrupt, "\(path) inflates to \(body.count) bytes, not the \(inflatedLength) it says")
            }
            return (version, body, isLegacy ? nil : stamp(of: bytes))
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.corrupt, "\(path) has a damaged body: \(error)")
        }
    }
}
