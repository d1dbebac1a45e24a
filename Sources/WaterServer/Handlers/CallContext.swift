import WaterCore

/// Who is calling: resolved from the envelope's token before a handler runs.
struct Caller: Sendable {
    var account: Account
    var digest: TokenDigest
    /// When the session ends by itself: its streams end then (``SessionStreams``).
    var expiresAtUnixMilliseconds: Int64 = .max
}

/// The facts of one call that a handler decides with: who calls, and when.
struct CallContext: Sendable {
    /// Nil only for methods anyone may call (Handshake, Login).
    let caller: Caller?
    let now: Int64
    /// The peer's address and port, for the log.
    let peer: String
    /// The peer's address alone: what login throttling counts by.
    let peerHost: String
    /// Where the groups of the call's own writes are recorded, for a call answered on the
    /// event loop (nil for one answered later, which waits for its own write's completion).
    var writes: CallWrites? = nil

    /// The caller, for methods that require one (the router guarantees it).
    var account: Account { caller!.account }
}
