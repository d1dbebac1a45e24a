/// The digest of a session token: the only form in which tokens are kept.
public struct TokenDigest: Hashable, Sendable {
    /// The 32 bytes as four words: a value with no storage of its own, so looking a session up
    /// by it allocates nothing.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.words = words
    }

    /// The digest of 32 bytes written by `fill` (a hash function's output).
    public init(filling fill: (UnsafeMutableRawBufferPointer) -> Void) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { fill($0) }
        self.words = words
    }

    public var bytes: [UInt8] {
        withUnsafeBytes(of: words) { Array($0) }
    }

    public static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        lhs.words == rhs.words
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

public struct Session: Hashable, Sendable {
    public var digest: TokenDigest
    public var memberID: UInt64
    public var expiresAtUnixMilliseconds: Int64

    public init(digest: TokenDigest, memberID: UInt64, expiresAtUnixMilliseconds: Int64) {
        self.digest = digest
        self.memberID = memberID
        self.expiresAtUnixMilliseconds = expiresAtUnixMilliseconds
    }
}
