import WaterProtocol

/// The file a snapshot is kept in:
///
///     +--------+---------+------+----------+----------------+---------+---------------------+
///     | "WTRA" | version | kind | reserved | inflated (u32) | CRC-32  | zlib(protobuf body) |
///     | 4 B    | u16     | u8   | u8       | 4 B            | 4 B     | ...                 |
///     +--------+---------+------+----------+----------------+---------+---------------------+
///
/// All integers big-endian. The CRC-32 covers the first 12 bytes and the compressed body, so
/// any flipped bit anywhere is caught; the inflated length is checked against a cap before
/// inflating, and the inflate itself stops at that length.
enum SnapshotFile {
    static let magic = Array("WTRA".utf8)
    static let headerLength = 16
    /// No archive of a household comes near this; a larger file is refused, not loaded.
    static let maximumLength = 64 << 20

    static func encode(body: [UInt8], version: UInt16, kind: ArchiveKind) -> [UInt8] {
        let compressed = Zlib.compress(body)
        var header = magic + BigEndian.bytes(version) + [kind.rawValue, 0] + BigEndian.bytes(UInt32(body.count))
        let crc = Checksum.crc32(header + compressed)
        header += BigEndian.bytes(crc)
        return header + compressed
    }

    /// The version and the inflated body of a snapshot file.
    /// - Throws: ``ArchiveError`` `.corrupt` for a bad magic, kind, checksum or zlib stream,
    ///   `.unsupportedVersion` for a version outside `versions`, `.tooLarge` past the cap.
    static func decode(_ bytes: [UInt8], kind: ArchiveKind, versions: ClosedRange<UInt16>, path: String)
        throws(ArchiveError) -> (version: UInt16, body: [UInt8])
    {
        guard bytes.count >= headerLength, Array(bytes[0..<4]) == magic else {
            throw ArchiveError(.corrupt, "\(path) is not a water archive (bad magic or too short)")
        }
        let stored = BigEndian.read(UInt32.self, from: bytes, at: 12)
        guard Checksum.crc32(Array(bytes[0..<12]) + bytes[headerLength...]) == stored else {
            throw ArchiveError(.corrupt, "\(path) fails its checksum")
        }
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
            return (version, body)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(.corrupt, "\(path) has a damaged body: \(error)")
        }
    }
}
