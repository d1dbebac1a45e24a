import Dispatch
import WaterCore
import WaterLog
import WaterProtocol
import WaterTransport

/// One client connection: frames in, calls dispatched, replies out.
///
/// Everything here runs on the connection's own serial queue (which targets a shared pool:
/// no thread per connection). Handlers answer from any thread through ``deliver(_:)``.
final class Connection: @unchecked Sendable {
    let id: UInt64
    let peer: String
    private let queue: DispatchQueue
    private let channel: SocketChannel
    private let services: ServerServices
    private let router: Router
    private let configuration: ServerConfiguration
    private let logger: Logger
    private let onClosed: @Sendable (UInt64) -> Void

    private var decoder: FrameDecoder
    private let encoder: FrameEncoder
    private var isHandshaken = false
    /// Calls that have not sent their final reply, with what to run if they are cancelled.
    private var inFlight: [UInt64: [@Sendable () -> Void]] = [:]
    /// One repeating timer checks the frame deadline and the idle timeout against these
    /// times: re-arming a timer on every read would cost a wake-up of Dispatch's manager
    /// thread per call.
    private var timer: DispatchSourceTimer?
    private var frameStartedAt: UInt64?
    private var lastActivity = DispatchTime.now().uptimeNanoseconds
    private var isDraining = false
    private var isClosed = false

    init(id: UInt64, socket: Socket, queue: DispatchQueue, services: ServerServices, router: Router,
         onClosed: @escaping @Sendable (UInt64) -> Void)
    {
        self.id = id
        self.peer = socket.peerAddress?.description ?? "?"
        self.queue = queue
        self.channel = SocketChannel(socket: socket, queue: queue)
        self.services = services
        self.router = router
        self.configuration = services.configuration
        self.logger = services.logger
        self.onClosed = onClosed
        self.decoder = FrameDecoder(maximumPayloadLength: configuration.maximumPayloadLength)
        self.encoder = FrameEncoder(maximumPayloadLength: configuration.maximumPayloadLength)
        queue.setSpecific(key: Self.queueKey, value: id)
    }

    func start() {
        queue.async { [self] in
            channel.start(onBytes: { [unowned self] in received($0) }, onClose: { [unowned self] in closed($0) })
            startTimer()
        }
    }

    /// Refuses the connection at once with a connection-level status (too many connections).
    func refuse(_ error: WaterError) {
        queue.async { [self] in
            channel.start(onBytes: { _ in }, onClose: { [unowned self] _ in closed(nil) })
            fail(error)
        }
    }

    /// Stops taking calls; closes once the calls in flight have answered. Streams end now.
    func drain() {
        queue.async { [self] in
            guard !isClosed else { return }
            isDraining = true
            for (callID, cancelHandlers) in inFlight where !cancelHandlers.isEmpty {
                cancelHandlers.forEach { $0() }
                send(ResponseEnvelope(callID: callID, error: WaterError(.unavailable, "the server is shutting down")))
            }
            if inFlight.isEmpty { channel.close(flushingFirst: true) }
        }
    }

    // MARK: Bytes and frames

    private func received(_ bytes: ArraySlice<UInt8>) {
        lastActivity = DispatchTime.now().uptimeNanoseconds
        decoder.append(bytes)
        do {
            while !isClosed, let frame = try decoder.nextFrame() {
                handle(frame.payload)
            }
        } catch {
            let code: WaterV1.StatusCode = if case .frameTooLarge = error { .resourceExhausted } else { .invalidArgument }
            fail(WaterError(code, "protocol error: \(error)"))
            return
        }
        updateFrameTimer()
    }

    private func handle(_ payload: [UInt8]) {
        let call: IncomingCall
        do {
            call = try IncomingCall(payload: payload)
        } catch {
            // An unknown method is that call's problem; an envelope that does not decode could
            // belong to any call, so the connection cannot go on.
            if error.code == .unimplemented, let envelope = try? WaterV1.RequestEnvelope(serializedBytes: payload) {
                return answer(envelope.callID, method: envelope.method, error)
            }
            return fail(error)
        }
        if call.envelope.cancel {
            return cancel(call.callID)
        }
        guard let method = call.method else { return }
        guard isHandshaken else {
            guard method == WaterV1.HandshakeRequest.method else {
                return fail(WaterError(.failedPrecondition, "the first call must be \(WaterV1.HandshakeRequest.method.fullName)"))
            }
            return handshake(call)
        }
        guard method != WaterV1.HandshakeRequest.method else {
            return answer(call.callID, method: method.fullName, WaterError(.failedPrecondition, "the handshake is already done"))
        }
        guard !isDraining else {
            return answer(call.callID, method: method.fullName, WaterError(.unavailable, "the server is shutting down; try again in a moment"))
        }
        guard inFlight[call.callID] == nil else {
            return answer(call.callID, method: method.fullName, .invalidField("call_id", "\(call.callID) is already in flight on this connection"))
        }
        guard inFlight.count < configuration.maximumCallsInFlight else {
            return answer(call.callID, method: method.fullName,
                          WaterError(.resourceExhausted, "more than \(configuration.maximumCallsInFlight) calls in flight; wait for replies"))
        }
        dispatch(call, method)
    }

    private func handshake(_ call: IncomingCall) {
        let request: WaterV1.HandshakeRequest
        do {
            request = try call.request(as: WaterV1.HandshakeRequest.self)
        } catch {
            return fail(error)
        }
        guard request.protocolVersion == WireProtocol.version else {
            return fail(WaterError(.failedPrecondition, "protocol version \(request.protocolVersion) is not supported; "
                + "this server speaks version \(WireProtocol.version): update water-client"), callID: call.callID)
        }
        isHandshaken = true
        let response = WaterV1.HandshakeResponse(
            protocolVersion: WireProtocol.version, serverName: "water-server",
            maxFrameLength: UInt32(configuration.maximumPayloadLength),
            maxCallsInFlight: UInt32(configuration.maximumCallsInFlight), serverTimeUnixMs: services.now(),
            householdTimeZone: configuration.householdTimeZone.identifier)
        send(ResponseEnvelope(callID: call.callID, response: response))
    }

    // MARK: Calls

    private func dispatch(_ call: IncomingCall, _ method: MethodDescriptor) {
        guard let handler = router.handler(for: method) else {
            return answer(call.callID, method: method.fullName,
                          WaterError(.unimplemented, "\(method.fullName) is not available on this server yet"))
        }
        let now = services.now()
        var caller: Caller?
        if handler.access != .anyone {
            switch authenticate(call.envelope.authToken, now: now) {
            case .success(let found): caller = found
            case .failure(let error): return answer(call.callID, method: method.fullName, error)
            }
            if handler.access == .admin, caller?.account.role != .admin {
                return answer(call.callID, method: method.fullName,
                              WaterError(.permissionDenied, "only an admin may call \(method.name)"))
            }
        }
        inFlight[call.callID] = []
        let callID = call.callID
        let responder = Responder(
            callID: callID, method: method.fullName,
            deliver: { [weak self] envelope in self?.deliver(envelope, method: method.fullName) },
            onCancel: { [weak self] handler in
                guard let self else { return }
                queue.async { self.inFlight[callID]?.append(handler) }
            })
        handler.handle(call, CallContext(services: services, caller: caller, now: now, peer: peer), responder)
    }

    private func authenticate(_ token: [UInt8], now: Int64) -> Result<Caller, WaterError> {
        guard !token.isEmpty else {
            return .failure(WaterError(.unauthenticated, "not logged in: run water-client login"))
        }
        if services.store.accounts.protection != nil { return .failure(.accountsUnreadable) }
        guard let digest = SessionTokens.digest(of: token),
            let found = try? services.store.accounts.read({ book -> Caller? in
                guard let session = book.session(digest, now: now), let account = book.accounts[session.memberID] else {
                    return nil
                }
                return Caller(account: account, digest: digest)
            })
        else {
            return .failure(WaterError(.unauthenticated, "your session has expired or was ended: run water-client login"))
        }
        return .success(found)
    }

    private func cancel(_ callID: UInt64) {
        guard let handlers = inFlight[callID] else { return }
        handlers.forEach { $0() }
        send(ResponseEnvelope(callID: callID, error: WaterError(.cancelled, "cancelled by the client")))
    }

    /// A handler's reply, from any thread. It is written on the calling thread, holding the
    /// connection's queue (`sync`) rather than queueing it behind a wake-up of another thread:
    /// a durable write's reply then leaves from the committer's thread the moment the sync
    /// returns. A handler that answers on the connection's own queue writes inline.
    private func deliver(_ envelope: ResponseEnvelope, method: String) {
        let write = { [self] in
            guard inFlight[envelope.callID] != nil else { return }  // cancelled or already answered
            if envelope.endOfStream, let status = envelope.status, status.code != .ok {
                logger.info("call failed", ["rpc.method": method, "rpc.code": "\(status.code)", "peer": peer,
                                            "message": status.message])
            }
            send(envelope)
        }
        if DispatchQueue.getSpecific(key: Self.queueKey) == id {
            write()
        } else {
            queue.sync(execute: write)
        }
    }

    /// Marks each connection's queue with the connection's id, so ``deliver(_:method:)`` knows
    /// when it already runs there.
    private static let queueKey = DispatchSpecificKey<UInt64>()

    /// Answers a call that never reached a handler.
    private func answer(_ callID: UInt64, method: String, _ error: WaterError) {
        logger.info("call failed", ["rpc.method": method, "rpc.code": "\(error.code)", "peer": peer, "message": error.message])
        channel.send(encode(ResponseEnvelope(callID: callID, error: error)))
    }

    private func send(_ envelope: ResponseEnvelope) {
        channel.send(encode(envelope))
        if envelope.endOfStream, inFlight.removeValue(forKey: envelope.callID) != nil {
            if isDraining && inFlight.isEmpty { channel.close(flushingFirst: true) }
            lastActivity = DispatchTime.now().uptimeNanoseconds
        }
    }

    private func encode(_ envelope: ResponseEnvelope) -> [UInt8] {
        do {
            return try encoder.encode(envelope.serializedBytes())
        } catch {
            // A reply over the frame limit: say so instead of sending what the client would refuse.
            let tooLarge = ResponseEnvelope(callID: envelope.callID, error: WaterError(.resourceExhausted, "the reply is too large to send"))
            return (try? encoder.encode(tooLarge.serializedBytes())) ?? []
        }
    }

    /// Ends the connection for a protocol violation: a connection-level status, then close.
    private func fail(_ error: WaterError, callID: UInt64 = WireProtocol.connectionCallID) {
        guard !isClosed else { return }
        logger.info("connection error", ["peer": peer, "rpc.code": "\(error.code)", "message": error.message])
        channel.send(encode(ResponseEnvelope(callID: callID, error: error)))
        isClosed = true
        channel.close(flushingFirst: true)
    }

    private func closed(_ error: SocketError?) {
        if let error { logger.info("connection error", ["peer": peer, "error": error.description]) }
        if decoder.isInsideFrame, error == nil {
            logger.info("connection error", ["peer": peer, "error": "closed inside a frame"])
        }
        isClosed = true
        for handlers in inFlight.values { handlers.forEach { $0() } }
        inFlight.removeAll()
        timer?.cancel()
        timer = nil
        onClosed(id)
    }

    // MARK: Timers

    /// A frame that has started must be finished within the frame deadline.
    private func updateFrameTimer() {
        if decoder.isInsideFrame {
            if frameStartedAt == nil { frameStartedAt = DispatchTime.now().uptimeNanoseconds }
        } else {
            frameStartedAt = nil
        }
    }

    /// Checks, a few times per deadline, whether a started frame is late or the connection
    /// has been idle (nothing in flight, nothing received) for the idle timeout.
    private func startTimer() {
        let frameDeadline = Self.nanoseconds(configuration.frameDeadline)
        let idleTimeout = Self.nanoseconds(configuration.idleTimeout)
        let interval = max(min(min(frameDeadline, idleTimeout) / 4, 1_000_000_000), 50_000_000)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(Int(interval)), repeating: .nanoseconds(Int(interval)),
                       leeway: .nanoseconds(Int(interval / 4)))
        timer.setEventHandler { [unowned self] in
            let now = DispatchTime.now().uptimeNanoseconds
            if let started = frameStartedAt, now - started > frameDeadline {
                fail(WaterError(.deadlineExceeded, "a frame took longer than \(configuration.frameDeadline) to arrive"))
            } else if inFlight.isEmpty, now - lastActivity > idleTimeout {
                fail(WaterError(.unavailable, "closing a connection idle for \(configuration.idleTimeout)"))
            }
        }
        timer.activate()
        self.timer = timer
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
