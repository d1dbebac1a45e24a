import CSodium
import WaterCore

/// Session tokens: 32 random bytes for the client, and only their BLAKE2b-256 digest on the
/// server, so the data directory holds nothing anyone could log in with.
public enum SessionTokens {
    public static let length = 32
    /// How long a login lasts.
    public static let lifetimeMilliseconds: Int64 = 90 * 24 * 3_600_000

    /// A new token from libsodium's CSPRNG.
    public static func make() -> [UInt8] {
        var token = [UInt8](repeating: 0, count: length)
        randombytes_buf(&token, length)
        return token
    }

    /// The digest a token is stored and looked up under; nil for a token of the wrong length.
    public static func digest(of token: [UInt8]) -> TokenDigest? {
        token.withUnsafeBytes { digest(of: $0) }
    }

    /// The same, of a token where a request envelope holds it: nothing is allocated.
    public static func digest(of token: UnsafeRawBufferPointer) -> TokenDigest? {
        guard token.count == length, let base = token.baseAddress else { return nil }
        return TokenDigest { digest in
            // - 0: done (it cannot fail for these lengths).
            crypto_generichash(
                digest.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                base.assumingMemoryBound(to: UInt8.self), UInt64(token.count), nil, 0)
        }
    }
}
