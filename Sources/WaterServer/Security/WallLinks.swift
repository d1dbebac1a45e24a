import WaterCore
import WaterStore
import WaterTLS

/// The kitchen wall's links: 32 random bytes as 43 characters of base64url in the page's path,
/// and only their BLAKE2b-256 digest on the server (``WallLink``), as for session tokens.
public enum WallLinks {
    /// The path of the page a token opens, on the wall's port.
    public static func path(_ token: String) -> String { "/wall/\(token)" }

    /// A new token (libsodium's CSPRNG) as text, with its digest.
    static func make() -> (token: String, digest: TokenDigest) {
        let bytes = SessionTokens.make()
        // 32 bytes always have a digest.
        return (Base64.encode(bytes, url: true), SessionTokens.digest(of: bytes)!)
    }

    /// The digest of a token as text; nil for text that is not one. Only the one spelling
    /// ``make()`` gives counts: the last character's two spare bits must be zero, or four
    /// texts would open each link.
    static func digest(of token: String) -> TokenDigest? {
        guard let bytes = Base64.decode(token, url: true), Base64.encode(bytes, url: true) == token else { return nil }
        return SessionTokens.digest(of: bytes)
    }
}

/// Whether a request to the wall may see the page.
public enum WallLinkAdmission: Sendable, Equatable {
    case admitted
    /// No such link (or not one at all): 404, which tells nothing about the household.
    case refused
    /// Too many wrong links from this address: it must wait, as a password guesser does.
    case throttled
}

/// Checks a wall link, counting wrong ones against the address in the login throttle (as a
/// password guess under the name "(wall link)"): guessing links is as slow as guessing passwords.
struct WallLinkGate: Sendable {
    static let throttleName = "(wall link)"
    let accounts: Archive<AccountBook>
    let throttle: LoginThrottle
    let now: @Sendable () -> Int64

    func admit(_ token: String, from address: String) -> WallLinkAdmission {
        let now = now()
        guard throttle.retryAfter(Self.throttleName, from: address, now: now) == nil else { return .throttled }
        if isOpen(token) { return .admitted }
        return miss(from: address, now: now)
    }

    /// A request from `address` for nothing there (no link in it, a wrong token for `/metrics`):
    /// counted as a wrong link. Throttled when the address must wait.
    func miss(from address: String, now: Int64) -> WallLinkAdmission {
        guard throttle.retryAfter(Self.throttleName, from: address, now: now) == nil else { return .throttled }
        if case .admitted(let attempt) = throttle.admit(Self.throttleName, from: address, now: now) {
            throttle.settle(attempt, succeeded: false)
        }
        return .refused
    }

    /// Whether `token` is a link not revoked (no count: a stream asking again of its own link).
    func isOpen(_ token: String) -> Bool {
        guard let digest = WallLinks.digest(of: token) else { return false }
        return (try? accounts.read { $0.wallLinks[digest] != nil }) ?? false
    }
}
