import WaterProtocol

/// The protocol side of one connection, with no socket, thread or clock of its own: events in
/// (bytes, a handler's reply, a deadline check, the peer closing, a drain), actions out (send,
/// dispatch, cancel, close), as postgres-nio's `ConnectionStateMachine`. ``Connection`` feeds it
/// and carries out what it returns; the tests drive it event by event.
///
/// It owns: the frame decoder, the handshake, which calls are in flight (and which of those are
/// streams), the limits, the frame deadline and idle timeout, and the drain at shutdown.
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
    }

    enum Action: Equatable {
        /// Send this reply. A final reply with a non-OK status is a failed call, to be logged.
        case send(WaterV1.ResponseEnvelope)
        /// Run this call: the handshake is done and the limits allow it. Its replies come back
        /// through ``replyReady(_:now:)``.
        case dispatch(IncomingCall)
        /// The call ended without its handler finishing it (cancelled, connection closing):
        /// run what the handler registered for that.
        case cancelCall(UInt64)
        /// Stop reading and close once everything sent is written. `reason` is a protocol
        /// error to log (its status was sent just before).
        case close(reason: WaterError?)
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
        self.decoder = FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength)
    }

    var isClosed: Bool { if case .closed = state { true } else { false } }
    var callsInFlight: Int { inFlight.count }
    /// Whether the peer stopped in the middle of a frame (for the log when it closes).
    var isInsideFrame: Bool { decoder.isInsideFrame }

    /// When ``deadlinePassed(now:)`` should next be called: the handshake deadline until the
    /// handshake is done, the frame deadline while a frame is arriving, the idle timeout while
    /// nothing is in flight, else never.
    var nextDeadline: UInt64? {
        guard !isClosed else { return nil }
        let handshake: UInt64? =
            if case .awaitingHandshake = state { startedAt + limits.handshakeDeadline } else { nil }
        let activity: UInt64? =
            if let frameStartedAt { frameStartedAt + limits.frameDeadline } else {
                inFlight.isEmpty ? lastActivity + limits.idleTimeout : nil
            }
        return [handshake, activity].compactMap { $0 }.min()
    }

    // MARK: Events

    mutating func bytesReceived(_ bytes: some Collection<UInt8>, now: UInt64) -> [Action] {
        guard !isClosed else { return [] }
        lastActivity = now
        decoder.append(bytes)
        var actions: [Action] = []
        do {
            while !isClosed, let frame = try decoder.nextFrame() {
                actions += frameReceived(frame.payload)
            }
        } catch {
            let code: WaterV1.StatusCode =
                if case .frameTooLarge = error { .resourceExhausted } else { .invalidArgument }
            return actions + fail(WaterError(code, "protocol error: \(error)"))
        }
        if decoder.isInsideFrame {
            if frameStartedAt == nil { frameStartedAt = now }
        } else {
            frameStartedAt = nil
        }
        return actions
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

    private mutating func frameReceived(_ payload: [UInt8]) -> [Action] {
        let call: IncomingCall
        do {
            call = try IncomingCall(payload: payload)
        } catch {
            // An unknown method is that call's problem; an envelope that does not decode could
            // belong to any call, so the connection cannot go on.
            if error.code == .unimplemented, let envelope = try? WaterV1.RequestEnvelope(serializedBytes: payload) {
                return [.send(WaterV1.ResponseEnvelope(callID: envelope.callID, error: error))]
            }
            return fail(error)
        }
        if call.envelope.cancel {
            guard inFlight.removeValue(forKey: call.callID) != nil else { return [] }
            return [
                .cancelCall(call.callID),
                .send(
                    WaterV1.ResponseEnvelope(
                        callID: call.callID, error: WaterError(.cancelled, "cancelled by the client"))),
            ]
                + closeIfDrained()
        }
        guard let method = call.method else { return [] }
        let refusal: WaterError?
        switch state {
        case .closed:
            return []
        case .awaitingHandshake:
            guard method == WaterV1.HandshakeRequest.method else {
                return fail(
                    WaterError(
                        .failedPrecondition, "the first call must be \(WaterV1.HandshakeRequest.method.fullName)"))
            }
            return handshake(call)
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
        if let refusal { return [.send(WaterV1.ResponseEnvelope(callID: call.callID, error: refusal))] }
        inFlight[call.callID] = method.isServerStreaming
        return [.dispatch(call)]
    }

    private mutating func handshake(_ call: IncomingCall) -> [Action] {
        let request: WaterV1.HandshakeRequest
        do {
            request = try call.request(as: WaterV1.HandshakeRequest.self)
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
