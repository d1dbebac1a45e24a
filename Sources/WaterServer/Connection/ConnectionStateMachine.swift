import WaterCodec
import WaterProtocol

/// The whole life of one connection, with no socket, thread or clock of its own: events in
/// (refused at accept, TLS done or failed, bytes, a frame pulled, a login, a handler's reply, a
/// deadline check, output written, the peer closing, closed to make room, a drain, a call the
/// server ends), actions out (send, dispatch, cancel, close after the flush or at once), as
/// postgres-nio's `ConnectionStateMachine`.
/// ``Connection`` feeds it and carries out what it returns; the tests drive it event by event.
///
/// It owns: the TLS phase and its deadline, the frame decoder and the frame budget of a turn,
/// the handshake, whether the peer has logged in (and so which limits its frames meet), which
/// calls are in flight (and which of those are streams), the limits, the frame deadline and
/// idle timeout, the drain at shutdown and the close once what was said is written.
///
///     tlsHandshaking --tlsHandshakeCompleted--> awaitingHandshake --handshake--> open
///          |  (TLS only; plaintext starts at awaitingHandshake)                   |
///          |                                                        drain --> draining
///          +--deadline, refused--> closed      any error, drained --> closing --outputWritten--> closed
///
/// Frames are pulled one at a time (``nextFrame(arena:now:)``): a call is run while its
/// envelope is still where it was decoded, before the next frame is read, so no envelope is
/// copied and nothing is allocated per call on the way to its handler.
struct ConnectionStateMachine {
    struct Limits: Sendable {
        var maximumPayloadLength: Int
        var maximumCallsInFlight: Int
        /// Nanoseconds a started frame may take to arrive.
        var frameDeadline: UInt64
        /// Nanoseconds a connection with nothing in flight may stay silent.
        var idleTimeout: UInt64
        /// Nanoseconds from the connection's start to the end of its handshake: a peer that
        /// opens a connection and says nothing holds a slot this long, not an idle timeout.
        var handshakeDeadline: UInt64
        /// The largest frame accepted until the peer has logged in (a Login, or a call with a
        /// valid token, on this connection): what a device with no account may make the server
        /// read and decode.
        var maximumPayloadLengthBeforeLogin = WireProtocol.maximumPayloadLengthBeforeLogin
        /// Frames taken from one connection in one loop turn: a burst waits for the next
        /// turns, between everyone else's.
        var framesPerTurn = 64
    }

    enum Action: Equatable {
        /// Send this reply. A final reply with a non-OK status is a failed call, to be logged.
        case send(WaterV1.ResponseEnvelope)
        /// Run this call (``bytesReceived(_:now:)`` only: ``nextFrame(arena:now:)`` hands calls
        /// over where they were decoded). Its replies come back through ``replyReady(_:now:)``.
        case dispatch(IncomingCall)
        /// The call ended without its handler finishing it (cancelled, connection closing):
        /// run what the handler registered for that.
        case cancelCall(UInt64)
        /// The handshake is answered: the connection is no longer one of its address's pending
        /// ones (``ConnectionAdmission``).
        case handshakeCompleted
        /// The peer logged in, the first time on this connection: it is no longer one of those
        /// that may be closed to make room (``ConnectionAdmission``).
        case loggedIn
        /// Stop reading and close once everything queued is written (``outputWritten(repliesLeft:)``
        /// says when). `reason` is a protocol error to log (its status was sent just before).
        case close(reason: WaterError?)
        /// Close without waiting: what the socket takes at once of what is queued is all the
        /// peer gets. A refused connection (over plaintext its status is queued just before),
        /// or a TLS handshake past its deadline, where no status can be said. `reason` is logged.
        case closeNow(reason: WaterError?)
    }

    /// What the next frame asks for.
    enum FrameOutcome {
        /// No complete frame yet.
        case needMoreBytes
        /// A call to run now: the handshake is done and the limits allow it. The envelope is
        /// valid until the next ``nextFrame(arena:now:)``.
        case call(RequestEnvelopeView, MethodDescriptor)
        /// What the frame came to otherwise: the handshake's reply, a refusal, a cancel, a
        /// protocol error.
        case actions([Action])
        /// This turn's frames are taken (``Limits/framesPerTurn``); the rest wait in the decoder
        /// until ``turnStarted(_:)`` says a new turn began.
        case budgetSpent
    }

    private enum State {
        /// Over TLS, until its handshake is done: nothing can be read or said yet.
        case tlsHandshaking
        case awaitingHandshake
        case open
        /// Shutting down: no new calls; closes once the calls in flight have answered.
        case draining
        /// Reads nothing more; closes once what is queued is written: the replies too, or with
        /// `replies` false (TLS failed) only the TLS layer's own bytes, the alert that says why.
        case closing(replies: Bool)
        case closed
    }

    let limits: Limits
    /// The handshake's reply for a version this server speaks.
    private let hello: () -> WaterV1.HandshakeResponse
    private var state = State.awaitingHandshake
    private var decoder: FrameDecoder
    /// Whether the peer has logged in on this connection: until then its frames meet the
    /// limits before login.
    private(set) var isLoggedIn = false
    /// Calls without their final reply, and whether each is a stream.
    private var inFlight: [UInt64: Bool] = [:]
    private var frameStartedAt: UInt64?
    private var lastActivity: UInt64
    private let startedAt: UInt64
    /// The loop turn the frame budget counts for, and the frames taken in it.
    private var budgetTurn: UInt64 = 0
    private var framesThisTurn = 0

    /// A connection accepted `now`; over TLS (`tls`) it starts with the TLS handshake.
    init(limits: Limits, now: UInt64, tls: Bool = false, hello: @escaping () -> WaterV1.HandshakeResponse) {
        self.limits = limits
        self.hello = hello
        self.lastActivity = now
        self.startedAt = now
        self.state = tls ? .tlsHandshaking : .awaitingHandshake
        self.decoder = FrameDecoder(
            maximumPayloadLength: min(limits.maximumPayloadLength, limits.maximumPayloadLengthBeforeLogin))
    }

    /// Whether frames are over: closing or closed.
    var isClosed: Bool {
        switch state {
        case .closed, .closing: true
        default: false
        }
    }
    /// Whether the TLS handshake is still under way (so nothing can be sent yet).
    var isAwaitingTLS: Bool { if case .tlsHandshaking = state { true } else { false } }
    /// Whether the handshake is not answered yet: the connection is one of its address's pending.
    var isPending: Bool {
        switch state {
        case .tlsHandshaking, .awaitingHandshake: true
        default: false
        }
    }
    /// Whether replies may go to the socket: TLS is done (or absent) and has not failed.
    var canSendReplies: Bool {
        switch state {
        case .tlsHandshaking, .closing(replies: false), .closed: false
        default: true
        }
    }
    /// Whether this turn's frames are not all taken yet.
    var hasFrameBudget: Bool { framesThisTurn < limits.framesPerTurn }
    var callsInFlight: Int { inFlight.count }
    /// Whether `callID` is still waiting for its final reply (a stream's messages for a call
    /// that ended are dropped).
    func isInFlight(_ callID: UInt64) -> Bool { inFlight[callID] != nil }
    /// Whether the peer stopped in the middle of a frame (for the log when it closes).
    var isInsideFrame: Bool { decoder.isInsideFrame }
    /// What the peer's messages are decoded under now.
    var decodeLimits: DecodeLimits { isLoggedIn ? .request : .beforeLogin }

    /// When ``deadlinePassed(now:)`` should next be called: the handshake deadline until the
    /// handshake is done, the frame deadline while a frame is arriving, the idle timeout while
    /// nothing is in flight, else never.
    var nextDeadline: UInt64? {
        guard !isClosed else { return nil }
        // The peer cannot be told anything before TLS is done: only its deadline counts.
        if case .tlsHandshaking = state { return startedAt + limits.handshakeDeadline }
        var deadline: UInt64? = nil
        if case .awaitingHandshake = state { deadline = startedAt + limits.handshakeDeadline }
        let activity: UInt64? =
            if let frameStartedAt { frameStartedAt + limits.frameDeadline } else {
                inFlight.isEmpty ? lastActivity + limits.idleTimeout : nil
            }
        if let activity { deadline = min(deadline ?? activity, activity) }
        return deadline
    }

    // MARK: Events

    /// The connection was refused at accept (too many connections, in all or from its address;
    /// shutting down): it is closed at once, never waiting for the peer. Over plaintext the
    /// status goes first (one small write the fresh socket takes whole); over TLS nothing can
    /// be said before a handshake, and a refused peer is not worth one.
    mutating func refused(_ error: WaterError) -> [Action] {
        let canSpeak: Bool
        switch state {
        case .tlsHandshaking: canSpeak = false
        case .awaitingHandshake: canSpeak = true
        default: preconditionFailure("a connection is refused when it is accepted, not later")
        }
        state = .closed
        let status = WaterV1.ResponseEnvelope(callID: WireProtocol.connectionCallID, error: error)
        return (canSpeak ? [.send(status)] : []) + [.closeNow(reason: error)]
    }

    /// The TLS handshake finished: frames may come now. The handshake deadline still runs from
    /// the connection's start, so a slow TLS handshake leaves less time for the protocol's.
    mutating func tlsHandshakeCompleted(now: UInt64) {
        guard case .tlsHandshaking = state else { return }
        state = .awaitingHandshake
        lastActivity = now
    }

    /// TLS failed (a bad record, a handshake refused): the alert that says why is all that can
    /// still go; calls in flight end and the replies waiting are dropped.
    mutating func tlsFailed() -> [Action] {
        guard !isClosed else { return [] }
        state = .closing(replies: false)
        defer { inFlight.removeAll() }
        return inFlight.keys.sorted().map { .cancelCall($0) } + [.close(reason: nil)]
    }

    /// A loop turn began (`turn` counts them): the frame budget is this turn's.
    mutating func turnStarted(_ turn: UInt64) {
        guard turn != budgetTurn else { return }
        budgetTurn = turn
        framesThisTurn = 0
    }

    /// Everything queued for the socket was written; `repliesLeft` says whether replies still
    /// wait (for their group to be durable). Closes a closing connection once nothing it is to
    /// send is left.
    mutating func outputWritten(repliesLeft: Bool) -> [Action] {
        guard case .closing(let replies) = state, !(replies && repliesLeft) else { return [] }
        state = .closed
        return [.closeNow(reason: nil)]
    }

    /// Bytes from the peer; the frames in them are pulled with ``nextFrame(arena:now:)``.
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard !isClosed, !isAwaitingTLS else { return }
        lastActivity = now
        decoder.append(bytes)
    }

    /// The next complete frame's outcome. Call it until it says ``FrameOutcome/needMoreBytes``,
    /// running each call it hands over before calling again.
    mutating func nextFrame(arena: WireArena, now: UInt64) -> FrameOutcome {
        guard !isClosed, !isAwaitingTLS else { return .needMoreBytes }
        guard hasFrameBudget else { return .budgetSpent }
        let frame: FrameView
        do {
            guard let next = try decoder.nextFrameView() else {
                if decoder.isInsideFrame {
                    if frameStartedAt == nil { frameStartedAt = now }
                } else {
                    frameStartedAt = nil
                }
                return .needMoreBytes
            }
            frame = next
        } catch {
            framesThisTurn += 1
            let tooLarge = !isLoggedIn && error.isTooLarge
            let code: WaterV1.StatusCode = error.isTooLarge ? .resourceExhausted : .invalidArgument
            return .actions(
                fail(
                    WaterError(
                        code,
                        tooLarge
                            ? "protocol error: \(error); until it logs in, a connection may send frames of at most "
                                + "\(decoder.maximumPayloadLength) bytes (the handshake, and Login)"
                            : "protocol error: \(error)")))
        }
        frameStartedAt = nil
        framesThisTurn += 1
        return frameReceived(frame.payload, arena: arena)
    }

    /// Bytes from the peer, with every frame in them taken at once: each call copied out of
    /// its envelope (``Action/dispatch(_:)``). What tests and any caller that cannot run calls
    /// where they were decoded use; the connection pulls frames instead.
    mutating func bytesReceived(_ bytes: some Collection<UInt8>, now: UInt64) -> [Action] {
        let received: Void? = bytes.withContiguousStorageIfAvailable {
            self.received(UnsafeRawBufferPointer($0), now: now)
        }
        if received == nil { Array(bytes).withUnsafeBytes { self.received($0, now: now) } }
        var actions: [Action] = []
        let arena = WireArena(initialBlockSize: 1024)
        while true {
            arena.reset()
            switch nextFrame(arena: arena, now: now) {
            case .needMoreBytes, .budgetSpent: return actions
            case .call(let envelope, let method):
                actions.append(.dispatch(IncomingCall(copying: envelope, method: method, limits: decodeLimits)))
            case .actions(let more): actions += more
            }
        }
    }

    /// The peer proved who it is on this connection (a Login, or a call with a valid token):
    /// from now on its frames may be as large as any member's.
    mutating func loggedIn() -> [Action] {
        guard !isLoggedIn else { return [] }
        isLoggedIn = true
        decoder.maximumPayloadLength = limits.maximumPayloadLength
        return [.loggedIn]
    }

    /// A call handed over by ``nextFrame(arena:now:)`` was answered at once (its reply is
    /// written): it is no longer in flight. Returns whether the connection is to close now (it
    /// was draining and this was its last call).
    mutating func callAnswered(_ callID: UInt64, now: UInt64) -> Bool {
        guard !isClosed, inFlight.removeValue(forKey: callID) != nil else { return false }
        lastActivity = now
        return !closeIfDrained().isEmpty
    }

    /// A handler's reply (or a stream's next message). Dropped when its call is no longer in
    /// flight (cancelled, or already finished).
    mutating func replyReady(_ envelope: WaterV1.ResponseEnvelope, now: UInt64) -> [Action] {
        guard !isClosed, inFlight[envelope.callID] != nil else { return [] }
        guard envelope.endOfStream else { return [.send(envelope)] }
        inFlight[envelope.callID] = nil
        lastActivity = now
        return [.send(envelope)] + closeIfDrained()
    }

    /// Checks the handshake deadline (TLS's and the protocol's), the frame deadline and the
    /// idle timeout.
    mutating func deadlinePassed(now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        if case .tlsHandshaking = state {
            guard now >= startedAt + limits.handshakeDeadline else { return [] }
            state = .closed
            return [
                .closeNow(
                    reason: WaterError(
                        .deadlineExceeded,
                        "the TLS handshake did not finish within \(Self.seconds(limits.handshakeDeadline)) of connecting"
                    ))
            ]
        }
        if case .awaitingHandshake = state, now >= startedAt + limits.handshakeDeadline {
            return fail(
                WaterError(
                    .deadlineExceeded,
                    "the handshake did not arrive within \(Self.seconds(limits.handshakeDeadline)) of connecting"))
        }
        if let frameStartedAt, now >= frameStartedAt + limits.frameDeadline {
            return fail(
                WaterError(
                    .deadlineExceeded, "a frame took longer than \(Self.seconds(limits.frameDeadline)) to arrive"))
        }
        if inFlight.isEmpty, now >= lastActivity + limits.idleTimeout {
            return fail(WaterError(.unavailable, "closing a connection idle for \(Self.seconds(limits.idleTimeout))"))
        }
        return []
    }

    /// The peer closed or the connection failed: every call in flight is over.
    mutating func peerClosed() -> [Action] {
        if case .closed = state { return [] }
        state = .closed
        defer { inFlight.removeAll() }
        return inFlight.keys.sorted().map { .cancelCall($0) }
    }

    /// The connection is closed to make room for a new one (``ConnectionAdmission``): it has not
    /// logged in. It closes at once, as a refused one does, with no status (over TLS none could
    /// be said before its handshake); a call in flight, if it had one, ends.
    mutating func evicted() -> [Action] {
        if case .closed = state { return [] }
        return peerClosed() + [.closeNow(reason: nil)]
    }

    /// The server is shutting down: streams end now with UNAVAILABLE, unary calls may finish,
    /// new calls are refused, and the connection closes once nothing is in flight.
    mutating func drain() -> [Action] {
        switch state {
        case .closed, .closing, .draining: return []
        case .tlsHandshaking:
            // Nothing can be said to it, and nothing is in flight.
            state = .closed
            return [.closeNow(reason: nil)]
        case .awaitingHandshake, .open: state = .draining
        }
        let shuttingDown = WaterError(.unavailable, "the server is shutting down")
        let streams = inFlight.filter(\.value).keys.sorted()
        return streams.flatMap { end($0, shuttingDown) } + closeIfDrained()
    }

    /// The server ends a call its handler has not finished (a stream whose session ended): what
    /// the handler registered for a cancel runs, and the peer is told `error`.
    mutating func callEnded(_ callID: UInt64, _ error: WaterError) -> [Action] {
        guard !isClosed, inFlight[callID] != nil else { return [] }
        return end(callID, error) + closeIfDrained()
    }

    // MARK: Frames

    private mutating func frameReceived(_ payload: UnsafeRawBufferPointer, arena: WireArena) -> FrameOutcome {
        let call: RequestEnvelopeView
        do {
            call = try RequestEnvelopeView(decoding: payload, arena: arena, limits: decodeLimits)
        } catch {
            // An envelope that does not decode could belong to any call: the connection
            // cannot go on.
            return .actions(fail(error))
        }
        if call.isCancel {
            guard inFlight[call.callID] != nil else { return .actions([]) }
            return .actions(end(call.callID, WaterError(.cancelled, "cancelled by the client")) + closeIfDrained())
        }
        // An unknown method is that call's problem, not the connection's.
        guard let method = call.method else {
            return .actions([.send(WaterV1.ResponseEnvelope(callID: call.callID, error: call.unknownMethodError))])
        }
        let refusal: WaterError?
        switch state {
        case .closed, .closing, .tlsHandshaking:
            return .actions([])
        case .awaitingHandshake:
            guard method == WaterV1.HandshakeRequest.method else {
                return .actions(
                    fail(
                        WaterError(
                            .failedPrecondition, "the first call must be \(WaterV1.HandshakeRequest.method.fullName)")))
            }
            return .actions(handshake(call, arena: arena))
        case .draining:
            refusal = WaterError(.unavailable, "the server is shutting down; try again in a moment")
        case .open:
            if method == WaterV1.HandshakeRequest.method {
                refusal = WaterError(.failedPrecondition, "the handshake is already done")
            } else if inFlight[call.callID] != nil {
                refusal = .invalidField("call_id", "call \(call.callID) is already in flight on this connection")
            } else if inFlight.count >= limits.maximumCallsInFlight {
                refusal = WaterError(
                    .resourceExhausted, "more than \(limits.maximumCallsInFlight) calls in flight; wait for replies")
            } else {
                refusal = nil
            }
        }
        if let refusal { return .actions([.send(WaterV1.ResponseEnvelope(callID: call.callID, error: refusal))]) }
        inFlight[call.callID] = method.isServerStreaming
        return .call(call, method)
    }

    private mutating func handshake(_ call: RequestEnvelopeView, arena: WireArena) -> [Action] {
        let request: WaterV1.HandshakeRequest
        do {
            request = try call.request(as: WaterV1.HandshakeRequest.self, arena: arena, limits: decodeLimits)
        } catch {
            return fail(error)
        }
        guard request.protocolVersion == WireProtocol.version else {
            return fail(
                WaterError(
                    .failedPrecondition,
                    "protocol version \(request.protocolVersion) is not supported; "
                        + "this server speaks version \(WireProtocol.version): update water-client"),
                callID: call.callID)
        }
        state = .open
        return [.send(WaterV1.ResponseEnvelope(callID: call.callID, response: hello())), .handshakeCompleted]
    }

    // MARK: Endings

    /// A protocol violation: a connection-level status (or the failed handshake's), then close.
    private mutating func fail(_ error: WaterError, callID: UInt64 = WireProtocol.connectionCallID) -> [Action] {
        guard !isClosed else { return [] }
        state = .closing(replies: true)
        let cancelled = inFlight.keys.sorted().map { Action.cancelCall($0) }
        inFlight.removeAll()
        return cancelled + [.send(WaterV1.ResponseEnvelope(callID: callID, error: error)), .close(reason: error)]
    }

    /// A call in flight ends before its handler finished it: the handler's cancel runs, and
    /// the peer is told why.
    private mutating func end(_ callID: UInt64, _ error: WaterError) -> [Action] {
        inFlight[callID] = nil
        return [.cancelCall(callID), .send(WaterV1.ResponseEnvelope(callID: callID, error: error))]
    }

    private mutating func closeIfDrained() -> [Action] {
        guard case .draining = state, inFlight.isEmpty else { return [] }
        state = .closing(replies: true)
        return [.close(reason: nil)]
    }

    private static func seconds(_ nanoseconds: UInt64) -> String {
        "\(Duration.nanoseconds(Int64(nanoseconds)))"
    }
}

extension FrameError {
    /// Whether the frame was refused for its size (on the wire, or inflated).
    var isTooLarge: Bool {
        switch self {
        case .frameTooLarge, .inflatedTooLarge, .compressionRatioExceeded: true
        default: false
        }
    }
}
