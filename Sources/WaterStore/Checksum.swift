import CZlib

/// The CRC-32 (ISO-HDLC, as in zlib and gzip) that guards every journal record and snapshot.
public enum Checksum {
    /// The CRC-32 of `bytes`, continuing from `previous` when a checksum spans several pieces.
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = uLong(previous)
        var remaining = bytes
        // zlib takes at most a uInt of length per call.
        while !remaining.isEmpty {
            let count = min(remaining.count, Int(UInt32.max))
            crc = CZlib.crc32(crc, remaining.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(count))
            remaining = UnsafeRawBufferPointer(rebasing: remaining[count...])
        }
        return UInt32(crc)
    }

    /// The CRC-32 of an array of bytes.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0) }
    }
}
