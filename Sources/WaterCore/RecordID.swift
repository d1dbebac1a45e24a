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
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var value: (UInt64, UInt64) = (0, 0)
        var digits = 0
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
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
            if digits < 16 { value.0 = value.0 << 4 | nibble } else { value.1 = value.1 << 4 | nibble }
            digits += 1
        }
        self.init(high: value.0, low: value.1)
    }

    /// The 16 bytes, big-endian.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The id from its 16 bytes, or nil when there are not exactly 16.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        let array = Array(bytes)
        self.init(
            high: array[0..<8].reduce(0) { $0 << 8 | UInt64($1) },
            low: array[8..<16].reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Lowercase canonical text.
    public var description: String {
        let hex = String(high, radix: 16).leftPadded(to: 16) + String(low, radix: 16).leftPadded(to: 16)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
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

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
