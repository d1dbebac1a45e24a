import WaterProtocol

/// The protocol side of one connection, with no socket, thread or clock of its own: events in
/// (bytes, a frame pulled, a handler's reply, a deadline check, the peer closing, a drain),
/// actions out (send, dispatch, cancel, close), as postgres-nio's `ConnectionStateMachine`.
/// ``Connection`` feeds it and carries out what it returns; the tests drive it event by event.
///
/// It owns: the frame decoder, the handshake, whether the peer has logged in (and so which
/// limits its frames meet), which calls are in flight (and which of those are streams), the
/// limits, the frame deadline and idle timeout, and the drain at shutdown.
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
        /// Stop reading and close once everything sent is written. `reason` is a protocol
        /// error to log (its status was sent just before).
        case close(reason: WaterError?)
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
    }

    private enum State {
        case awaitingHandshake
        case open
        /// Shutting down: no new calls; closes once the calls in flight have answered.
        case draining
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

    init(limits: Limits, now: UInt64, hello: @escaping () -> WaterV1.HandshakeResponse) {
        self.limits = limits
        self.hello = hello
        self.lastActivity = now
        self.startedAt = now
        self.decoder = FrameDecoder(
            maximumPayloadLength: min(limits.maximumPayloadLength, limits.maximumPayloadLengthBeforeLogin))
    }

    var isClosed: Bool { if case .closed = state { true } else { false } }
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

    /// Bytes from the peer; the frames in them are pulled with ``nextFrame(arena:now:)``.
    mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) {
        guard !isClosed else { return }
        lastActivity = now
        decoder.append(bytes)
    }

    /// The next complete frame's outcome. Call it until it says ``FrameOutcome/needMoreBytes``,
    /// running each call it hands over before calling again.
    mutating func nextFrame(arena: WireArena, now: UInt64) -> FrameOutcome {
        guard !isClosed else { return .needMoreBytes }
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
            case .needMoreBytes: return actions
            case .call(let envelope, let method):
                actions.append(.dispatch(IncomingCall(copying: envelope, method: method, limits: decodeLimits)))
            case .actions(let more): actions += more
            }
        }
    }

    /// The peer proved who it is on this connection (a Login, or a call with a valid token):
    /// from now on its frames may be as large as any member's.
    mutating func loggedIn() {
        guard !isLoggedIn else { return }
        isLoggedIn = true
        decoder.maximumPayloadLength = limits.maximumPayloadLength
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

    /// Checks the handshake deadline, the frame deadline and the idle timeout.
    mutating func deadlinePassed(now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
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
        guard !isClosed else { return [] }
        state = .closed
        defer { inFlight.removeAll() }
        return inFlight.keys.sorted().map { .cancelCall($0) }
    }

    /// The server is shutting down: streams end now with UNAVAILABLE, unary calls may finish,
    /// new calls are refused, and the connection closes once nothing is in flight.
    mutating func drain() -> [Action] {
        switch state {
        case .closed, .draining: return []
        case .awaitingHandshake, .open: state = .draining
        }
        var actions: [Action] = []
        for (callID, isStream) in inFlight.sorted(by: { $0.key < $1.key }) where isStream {
            inFlight[callID] = nil
            actions += [
                .cancelCall(callID),
                .send(
                    WaterV1.ResponseEnvelope(
                        callID: callID, error: WaterError(.unavailable, "the server is shutting down"))),
            ]
        }
        return actions + closeIfDrained()
    }

    /// Refuses the connection at once (too many connections): a status, then close.
    mutating func refuse(_ error: WaterError) -> [Action] {
        fail(error)
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
            guard inFlight.removeValue(forKey: call.callID) != nil else { return .actions([]) }
            return .actions(
                [
                    .cancelCall(call.callID),
                    .send(
                        WaterV1.ResponseEnvelope(
                            callID: call.callID, error: WaterError(.cancelled, "cancelled by the client"))),
                ] + closeIfDrained())
        }
        // An unknown method is that call's problem, not the connection's.
        guard let method = call.method else {
            return .actions([.send(WaterV1.ResponseEnvelope(callID: call.callID, error: call.unknownMethodError))])
        }
        let refusal: WaterError?
        switch state {
        case .closed:
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
        return [.send(WaterV1.ResponseEnvelope(callID: call.callID, response: hello()))]
    }

    // MARK: Endings

    /// A protocol violation: a connection-level status (or the failed handshake's), then close.
    private mutating func fail(_ error: WaterError, callID: UInt64 = WireProtocol.connectionCallID) -> [Action] {
        guard !isClosed else { return [] }
        state = .closed
        let cancelled = inFlight.keys.sorted().map { Action.cancelCall($0) }
        inFlight.removeAll()
        return cancelled + [.send(WaterV1.ResponseEnvelope(callID: callID, error: error)), .close(reason: error)]
    }

    private mutating func closeIfDrained() -> [Action] {
        guard case .draining = state, inFlight.isEmpty else { return [] }
        state = .closed
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
