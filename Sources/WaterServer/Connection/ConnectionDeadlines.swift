import WaterProtocol

/// The deadlines of one connection, from the times of its events: the handshake's (TLS's and
/// the protocol's, both counted from the connection's start), a frame's (from its first byte),
/// and the idle timeout (from the last activity, while no call is in flight). A sub-state of
/// ``ConnectionStateMachine``, which owns it, tells it the times, and asks it what is due; no
/// clock of its own.
struct ConnectionDeadlines {
    /// How far the connection has got: which deadlines apply.
    enum Phase {
        /// Over TLS, before its handshake is done: only the handshake deadline counts.
        case tlsHandshake
        /// Waiting for the protocol's handshake: its deadline, and a frame's.
        case handshake
        /// Past the handshake: a frame's deadline, and the idle timeout.
        case calls
    }

    let limits: ConnectionStateMachine.Limits
    private let startedAt: UInt64
    private var lastActivity: UInt64
    /// When the frame arriving now started, if one is.
    private var frameStartedAt: UInt64?

    /// A connection accepted `now`.
    init(limits: ConnectionStateMachine.Limits, now: UInt64) {
        self.limits = limits
        startedAt = now
        lastActivity = now
    }

    /// The peer did something the idle timeout counts from (bytes, a finished call, TLS done).
    mutating func activity(at now: UInt64) {
        lastActivity = now
    }

    /// The decoder holds part of a frame at `now`: its deadline runs from the first time seen.
    mutating func frameIncomplete(at now: UInt64) {
        if frameStartedAt == nil { frameStartedAt = now }
    }

    /// No frame is arriving (one was completed, or nothing is buffered).
    mutating func frameEnded() {
        frameStartedAt = nil
    }

    /// The next time a deadline may pass in `phase`; `idle` when no call is in flight.
    func next(in phase: Phase, idle: Bool) -> UInt64? {
        let handshake = startedAt + limits.handshakeDeadline
        // The peer cannot be told anything before TLS is done: only its deadline counts.
        if phase == .tlsHandshake { return handshake }
        let activity: UInt64? =
            if let frameStartedAt { frameStartedAt + limits.frameDeadline } else {
                idle ? lastActivity + limits.idleTimeout : nil
            }
        guard phase == .handshake else { return activity }
        return min(handshake, activity ?? handshake)
    }

    /// What has passed by `now` in `phase` (`idle` when no call is in flight), as the error the
    /// connection closes with; nil when nothing has.
    func passed(at now: UInt64, in phase: Phase, idle: Bool) -> WaterError? {
        if phase != .calls, now >= startedAt + limits.handshakeDeadline {
            let handshake = Self.seconds(limits.handshakeDeadline)
            return WaterError(
                .deadlineExceeded,
                phase == .tlsHandshake
                    ? "the TLS handshake did not finish within \(handshake) of connecting"
                    : "the handshake did not arrive within \(handshake) of connecting")
        }
        guard phase != .tlsHandshake else { return nil }
        if let frameStartedAt, now >= frameStartedAt + limits.frameDeadline {
            return WaterError(
                .deadlineExceeded, "a frame took longer than \(Self.seconds(limits.frameDeadline)) to arrive")
        }
        if idle, now >= lastActivity + limits.idleTimeout {
            return WaterError(.unavailable, "closing a connection idle for \(Self.seconds(limits.idleTimeout))")
        }
        return nil
    }

    private static func seconds(_ nanoseconds: UInt64) -> String {
        "\(Duration.nanoseconds(Int64(nanoseconds)))"
    }
}
