/// Reading a damaged journal for `water-server repair`: every frame that still verifies,
/// wherever it is, and where the damage lies.
extension JournalFile {
    struct Salvage {
        /// The journal's version, as its header says (2 when the header itself is damaged).
        var version: UInt16
        /// Every record of every frame whose checksum holds, in file order.
        var records: [ArraySlice<UInt8>]
        /// Byte ranges that are neither a verified frame nor the zeros after the last one.
        var damaged: [Range<Int>]
        /// Frames whose checksum holds but whose records do not split or decode.
        var malformedFrames: Int
        /// The length the segment was made with, when its header says so and the file is
        /// shorter: whatever was written past the cut is gone.
        var cutShort: (at: Int, of: Int)?
    }

    /// Scans `bytes` from the header on, taking each verified frame and stepping a byte at a
    /// time over anything else, so that one damaged frame costs only itself.
    static func salvage(_ bytes: [UInt8], path: String) -> Salvage {
        let headerVersion =
            bytes.count >= 6 && Array(bytes[0..<4]) == magic
            ? BigEndian.read(UInt16.self, from: bytes, at: 4) : version
        let version = readableVersions.contains(headerVersion) ? headerVersion : Self.version
        var salvage = Salvage(version: version, records: [], damaged: [], malformedFrames: 0)
        if version >= 2, bytes.count >= headerLength,
            BigEndian.read(UInt32.self, from: bytes, at: headerLength - 4)
                == Checksum.crc32(Array(bytes[0..<(headerLength - 4)]))
        {
            let segmentLength = Int(BigEndian.read(UInt32.self, from: bytes, at: 16))
            if bytes.count < segmentLength { salvage.cutShort = (bytes.count, segmentLength) }
        }
        var offset = version == 1 ? 20 : headerLength
        var damageStart: Int?
        // The zeros a segment ends in are not damage.
        let end = (bytes.lastIndex { $0 != 0 } ?? -1) + 1
        while offset < end {
            guard let payload = validFrame(in: bytes, at: offset) else {
                damageStart = damageStart ?? offset
                offset += 1
                continue
            }
            if let start = damageStart { salvage.damaged.append(start..<offset) }
            damageStart = nil
            let body = version == 1 ? payload : payload.dropFirst()
            if version == 1 || payload.first == 1 {
                if let records = try? records(in: body, path: path, offset: offset) {
                    salvage.records += records
                } else {
                    salvage.malformedFrames += 1
                }
            }
            offset = payload.endIndex
        }
        if let start = damageStart { salvage.damaged.append(start..<end) }
        return salvage
    }
}
