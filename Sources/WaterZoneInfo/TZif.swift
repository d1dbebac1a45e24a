import WaterCore

/// Parses a compiled time zone file (TZif, RFC 8536): the UTC offsets a zone has had and when
/// they changed.
package enum TZif {
    /// The zone's offsets, or nil when `bytes` are not a TZif file.
    package static func parse(_ bytes: [UInt8]) -> UTCOffsetTable? {
        var reader = Reader(bytes: bytes)
        guard let v1 = reader.header() else { return nil }
        // Version 2 and later repeat the data with 64-bit times after the 32-bit block.
        if v1.version >= 2 {
            reader.skip(v1.dataLength(timeSize: 4))
            guard let v2 = reader.header() else { return nil }
            return reader.data(v2, timeSize: 8)
        }
        return reader.data(v1, timeSize: 4)
    }

    private struct Header {
        var version: Int
        var isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int

        func dataLength(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func skip(_ count: Int) { offset += count }

        mutating func integer(_ size: Int) -> Int64? {
            guard offset + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
            offset += size
            // Sign-extend.
            let shift = UInt64(64 - size * 8)
            return Int64(bitPattern: value << shift) >> Int64(shift)
        }

        mutating func header() -> Header? {
            guard offset + 44 <= bytes.count, Array(bytes[offset..<(offset + 4)]) == Array("TZif".utf8) else {
                return nil
            }
            let versionByte = bytes[offset + 4]
            let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
            offset += 20
            var counts: [Int] = []
            for _ in 0..<6 { counts.append(Int(integer(4) ?? -1)) }
            guard counts.allSatisfy({ $0 >= 0 && $0 < 100_000 }) else { return nil }
            return Header(
                version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
                timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
        }

        mutating func data(_ header: Header, timeSize: Int) -> UTCOffsetTable? {
            guard header.typecnt > 0, offset + header.dataLength(timeSize: timeSize) <= bytes.count else { return nil }
            var instants: [Int64] = []
            for _ in 0..<header.timecnt { instants.append(integer(timeSize)!) }
            let typeIndices = (0..<header.timecnt).map { _ in Int(integer(1)!) & 0xFF }
            var typeOffsets: [Int64] = []
            for _ in 0..<header.typecnt {
                typeOffsets.append(integer(4)!)
                skip(2)  // isdst, designation index
            }
            guard typeIndices.allSatisfy({ $0 < typeOffsets.count }) else { return nil }
            return UTCOffsetTable(
                initialOffset: typeOffsets[0], instants: instants, offsets: typeIndices.map { typeOffsets[$0] })
        }
    }
}
