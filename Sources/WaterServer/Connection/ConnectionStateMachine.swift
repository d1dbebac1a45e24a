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
/// calls are in flight (and which of those are streams), the limits, the deadlines (a
/// ``ConnectionDeadlines`` of its own: the handshake's, a frame's and the idle timeout), the
/// drain at shutdown and the close once what was said is written. Its limits, actions and frame
/// outcomes are declared in `ConnectionStateMachine+Actions.swift`.
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
    /// The handshake deadline, a frame's, and the idle timeout.
    private var deadlines: ConnectionDeadlines
    /// The loop turn the frame budget counts for, and the frames taken in it.
    private var budgetTurn: UInt64 = 0
    private var framesThisTurn = 0

    /// A connection accepted `now`; over TLS (`tls`) it starts with the TLS handshake.
    init(limits: Limits, now: UInt64, tls: Bool = false, hello: @escaping () -> WaterV1.HandshakeResponse) {
        self.limits = limits
        self.hello = hello
        self.deadlines = ConnectionDeadlines(limits: limits, now: now)
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
        deadlinePhase.flatMap { deadlines.next(in: $0, idle: inFlight.isEmpty) }
    }

    /// Which deadlines apply now; none once it is closing.
    private var deadlinePhase: ConnectionDeadlines.Phase? {
        switch state {
        case .closing, .closed: nil
        case .tlsHandshaking: .tlsHandshake
        case .awaitingHandshake: .handshake
        case .open, .draining: .calls
        }
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
        deadlines.activity(at: now)
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
        deadlines.activity(at: now)
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
                    deadlines.frameIncomplete(at: now)
                } else {
                    deadlines.frameEnded()
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
        deadlines.frameEnded()
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
        deadlines.activity(at: now)
        return !closeIfDrained().isEmpty
    }

    /// A handler's reply (or a stream's next message). Dropped when its call is no longer in
    /// flight (cancelled, or already finished).
    mutating func replyReady(_ envelope: WaterV1.ResponseEnvelope, now: UInt64) -> [Action] {
        guard !isClosed, inFlight[envelope.callID] != nil else { return [] }
        guard envelope.endOfStream else { return [.send(envelope)] }
        inFlight[envelope.callID] = nil
        deadlines.activity(at: now)
        return [.send(envelope)] + closeIfDrained()
    }

    /// Checks the handshake deadline (TLS's and the protocol's), the frame deadline and the
    /// idle timeout.
    mutating func deadlinePassed(now: UInt64) -> [Action] {
        guard let phase = deadlinePhase, let passed = deadlines.passed(at: now, in: phase, idle: inFlight.isEmpty)
        else { return [] }
        guard phase == .tlsHandshake else { return fail(passed) }
        // Nothing can be said before TLS is done.
        state = .closed
        return [.closeNow(reason: passed)]
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
}
