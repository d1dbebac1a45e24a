import Dispatch
import WaterCore
import WaterProtocol
import WaterSync

/// The live streams of every session, so that a session's streams end the moment it does: at
/// Logout, a password change or reset, the member's removal (``end(_:)``, told by
/// ``ArchiveAccess`` once each is durable, before its reply) and when it expires (a timer of
/// its own).
///
/// One per server, owned by ``ServerServices``; its state is under its one lock. It ends a
/// stream only through the stream's ``Responder/end(_:)``, so the connection's state machine
/// still decides what the call's end means (its handler's cancel runs, the peer is told).
final class SessionStreams: Sendable {
    /// What a stream whose session ended is told.
    static let sessionEnded = WaterError(.unauthenticated, "your session ended: run water-client login")

    private struct Stream {
        var session: TokenDigest
        var memberID: UInt64
        var expiresAtUnixMilliseconds: Int64
        var end: @Sendable (WaterError) -> Void
    }

    private struct State {
        var streams: [UInt64: Stream] = [:]
        var nextID: UInt64 = 1
        /// The expiry the timer is set for; nil: none is.
        var timerAt: Int64?
    }

    private let state = Locked(State())
    /// The server's clock, which sessions' expiries are in.
    private let now: @Sendable () -> Int64
    /// Whether a session (by its token's digest) is live at a time: the accounts say.
    private let isLive: @Sendable (TokenDigest, _ now: Int64) -> Bool
    /// Where the expiry timer fires.
    private let queue = DispatchQueue(label: "water.session-streams")

    init(
        now: @escaping @Sendable () -> Int64,
        isLive: @escaping @Sendable (TokenDigest, _ now: Int64) -> Bool = { _, _ in true }
    ) {
        self.now = now
        self.isLive = isLive
    }

    /// How many streams are registered (for tests).
    var count: Int { state.withLock { $0.streams.count } }

    /// Ties `responder`'s stream to the session of `call`: it ends (``Responder/end(_:)``) when
    /// the session does, and leaves the list when its call is cancelled or its connection
    /// closes. The session is checked once it is listed: one that ended between the token's
    /// check and here ended none of it.
    /// - Returns: its id: a stream that finishes by itself calls ``remove(_:)`` with it.
    @discardableResult
    func tie(_ responder: Responder, to call: CallContext) -> UInt64 {
        let caller = call.caller!
        let id = add(caller, end: responder.end)
        responder.onCancel { [weak self] in self?.remove(id) }
        if !isLive(caller.digest, call.now), state.withLock({ $0.streams.removeValue(forKey: id) }) != nil {
            responder.end(Self.sessionEnded)
        }
        return id
    }

    /// Registers a stream of `caller`'s session; `end` runs once, when the session ends.
    /// - Returns: its id, for ``remove(_:)`` when the call ends otherwise.
    /// - Important: call ``remove(_:)`` when the call ends (its cancel), or it stays listed
    ///   until its session ends.
    func add(_ caller: Caller, end: @escaping @Sendable (WaterError) -> Void) -> UInt64 {
        let expiry = caller.expiresAtUnixMilliseconds
        let (id, arm) = state.withLock { state -> (UInt64, Bool) in
            defer { state.nextID += 1 }
            state.streams[state.nextID] = Stream(
                session: caller.digest, memberID: caller.account.id, expiresAtUnixMilliseconds: expiry, end: end)
            guard expiry < state.timerAt ?? .max else { return (state.nextID, false) }
            state.timerAt = expiry
            return (state.nextID, true)
        }
        if arm { armTimer(at: expiry) }
        return id
    }

    /// The stream's call ended otherwise (finished, cancelled, its connection closed).
    func remove(_ id: UInt64) {
        state.withLock { _ = $0.streams.removeValue(forKey: id) }
    }

    /// `ended` sessions are over: their streams end now, a removed member's saying so.
    func end(_ ended: EndedSessions) {
        guard !ended.isEmpty else { return }
        endStreams { stream in
            if ended.removedMembers.contains(stream.memberID) { return .noLongerMember }
            return ended.sessions.contains(stream.session) || ended.members.contains(stream.memberID)
                ? Self.sessionEnded : nil
        }
    }

    /// Ends the streams of the sessions expired by now.
    func endExpired() {
        let now = now()
        endStreams { $0.expiresAtUnixMilliseconds <= now ? Self.sessionEnded : nil }
    }

    /// Ends each stream `ending` gives an error for, with that error.
    private func endStreams(where ending: (Stream) -> WaterError?) {
        let over = state.withLock { state in
            let over = state.streams.compactMap { id, stream in ending(stream).map { (id, stream, $0) } }
            for (id, _, _) in over { state.streams[id] = nil }
            return over
        }
        // Outside the lock: each goes to its connection's loop.
        for (_, stream, error) in over { stream.end(error) }
    }

    /// Sets the timer for `expiry`. A timer that finds another set for an earlier expiry since
    /// does nothing: one timer is live at a time.
    private func armTimer(at expiry: Int64) {
        guard expiry < .max else { return }
        // Dispatch's timers count whole milliseconds; a long wait is cut to a day and set again.
        let wait = min(max(expiry - now(), 0), 86_400_000)
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(wait))) { [weak self] in
            self?.timerFired(for: expiry)
        }
    }

    private func timerFired(for expiry: Int64) {
        guard state.withLock({ $0.timerAt == expiry }) else { return }
        if now() >= expiry { endExpired() }
        let next = state.withLock { state -> Int64? in
            let next = state.streams.values.map(\.expiresAtUnixMilliseconds).min()
            state.timerAt = next
            return next
        }
        if let next { armTimer(at: next) }
    }
}

/// The sessions a decision ends: some by their digest (Logout), all of some members' (a
/// password set), all of removed members' (told why: they are no longer members).
struct EndedSessions: Sendable, Equatable {
    var sessions: [TokenDigest] = []
    var members: [UInt64] = []
    var removedMembers: [UInt64] = []

    var isEmpty: Bool { sessions.isEmpty && members.isEmpty && removedMembers.isEmpty }
}
