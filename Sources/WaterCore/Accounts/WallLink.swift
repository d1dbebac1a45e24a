/// A read-only link to the kitchen wall (`water-client wall link`): only its token's digest is
/// kept, as for sessions, so a copy of the data opens no wall.
public struct WallLink: Hashable, Sendable {
    public var digest: TokenDigest
    /// The admin who made it.
    public var madeBy: UInt64
    public var madeAtUnixMilliseconds: Int64
    /// What it is for ("kitchen tablet"); may be empty.
    public var label: String

    /// Links a household keeps at most: a few tablets, not a publishing system.
    public static let maximumCount = 16
    /// The longest label, in bytes.
    public static let maximumLabelBytes = 64

    public init(digest: TokenDigest, madeBy: UInt64, madeAtUnixMilliseconds: Int64, label: String) {
        self.digest = digest
        self.madeBy = madeBy
        self.madeAtUnixMilliseconds = madeAtUnixMilliseconds
        self.label = label
    }

    /// The link's short name for `wall ls` and `wall revoke`: the first 8 bytes of its digest in
    /// hex (the digest tells nothing of the token).
    public var id: String {
        digest.bytes.prefix(8).map { byte in
            let hex = Array("0123456789abcdef")
            return "\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
        }.joined()
    }
}
