/// A UUID chosen by a client to name a water entry, a todo item or a habit, so that a retried
/// write is recognised instead of applied twice. Kept as two 64-bit halves: cheap to hash and
/// to store.
public struct RecordID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The first 8 bytes, big-endian.
    public let high: UInt64
    /// The last 8 bytes, big-endian.
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the canonical text form, `8-4-4-4-12` hex digits, either case.
    public init?(_ text: some StringProtocol) {
        // Every request carries an id or two: read the UTF-8 in place, with no copies.
        let parsed = text.utf8.withContiguousStorageIfAvailable(Self.parse) ?? Self.parse(Array(text.utf8))
        guard let parsed else { return nil }
        self.init(high: parsed.high, low: parsed.low)
    }

    private static func parse(_ utf8: some Collection<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard utf8.count == 36 else { return nil }
        var (high, low): (UInt64, UInt64) = (0, 0)
        var digits = 0
        var index = 0
        for byte in utf8 {
            defer { index += 1 }
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            if digits < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
            digits += 1
        }
        return (high, low)
    }

    /// The 16 bytes, big-endian (every record of the log that names an entry carries them:
    /// written straight into the array's storage).
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: high.bigEndian, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            count = 16
        }
    }

    /// The id from its 16 bytes, or nil when there are not exactly 16.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var (high, low): (UInt64, UInt64) = (0, 0)
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Lowercase canonical text. (Every reply about an entry carries one: written straight into
    /// the string's storage.)
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let half = digit < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: half >> (60 - 4 * UInt64(digit % 16))) & 0xF
                buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
                position += 1
            }
            return position
        }
    }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

extension RecordID {
    /// A time-ordered id in the layout of UUID version 8 (RFC 9562, custom):
    ///
    ///     | unix ms (48) | ver 8 (4) | counter (12) | var 10 (2) | installation (62) |
    ///
    /// The client library makes its ids this way: they sort by creation time, and since an
    /// entry's id usually carries its own `at_unix_ms` and the installation part repeats, the
    /// archive stores such ids in a byte or two instead of sixteen.
    public static func timeOrdered(unixMilliseconds: Int64, counter: UInt16, installation: UInt64) -> RecordID {
        RecordID(
            high: UInt64(truncatingIfNeeded: unixMilliseconds) << 16 | 0x8000 | UInt64(counter & 0x0FFF),
            low: 0x8000_0000_0000_0000 | installation & 0x3FFF_FFFF_FFFF_FFFF)
    }

    /// The 48-bit millisecond timestamp in the id's first bytes; meaningful for time-ordered ids.
    public var embeddedUnixMilliseconds: Int64 { Int64(high >> 16) }
}
