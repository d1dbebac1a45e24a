/// Fixed-width big-endian integers in the file headers.
enum BigEndian {
    static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// The integer at `offset`; the caller has checked that the bytes are there.
    static func read<T: FixedWidthInteger>(
        _ type: T.Type, from bytes: some RandomAccessCollection<UInt8>,
        at offset: Int
    ) -> T {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return bytes[start..<bytes.index(start, offsetBy: T.bitWidth / 8)].reduce(T(0)) { $0 << 8 | T($1) }
    }
}
