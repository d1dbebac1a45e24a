import WaterCore
import WaterLog
import WaterProtocol
import WaterTLS
import WaterTransport

/// One client connection, owned by the server's event loop: its socket, its
/// ``ConnectionStateMachine``, its output buffer and its deadline timer are touched on the
/// loop only (each entry point checks). Handlers answer from anywhere through the
/// ``Responder`` it hands them, which goes back to the loop when called elsewhere.
///
/// Replies are buffered and written at the end of the loop's turn (``flush()``), after the
/// turn's durable writes are synced.
final class Connection: EventLoopHandler, @unchecked Sendable {
    let id: UInt64
    let peer: String
    /// The peer's address without the port: what connection limits and login throttling count.
    let peerHost: String
    private let socket: Socket
    private let loop: EventLoop
    private let services: ServerServices
    private let router: Router
    private let logger: Logger
    /// Where this connection asks to be flushed, and says it closed.
    private unowned let owner: ConnectionOwner

    private var machine: ConnectionStateMachine
    private let encoder: FrameEncoder
    /// The TLS session under the frames; nil when serving plaintext on loopback.
    private let tls: TLSSession?
    private var isTLSReady = false
    /// Frames written before the TLS handshake ended (a refusal): sent once it has.
    private var waitingForTLS: [UInt8] = []
    /// Closes the connection if its TLS handshake is not done by the handshake deadline.
    private var tlsTimer: TimerQueue.ID?
    private var token: EventLoop.Token = 0
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var isWatchingWrites = false
    private var isReading = true
    private var closeWhenFlushed = false
    private var isClosed = false
    /// What each call's handler asked to run if the call ends without it (cancel, close).
    private var cancelHandlers: [UInt64: [@Sendable () -> Void]] = [:]
    private var timer: TimerQueue.ID?
    private var timerDeadline: UInt64?

    /// Reading stops while this much waits to be written: a peer that does not read its
    /// replies cannot make the server buffer without bound.
    static let maximumPendingOutput = 4 << 20
    /// Read at most this much per turn, so one busy peer cannot starve the others.
    private static let readBudget = 256 * 1024

    init(
        id: UInt64, socket: Socket, loop: EventLoop, services: ServerServices, router: Router, owner: ConnectionOwner
    ) throws(TLSError) {
        let configuration = services.configuration
        self.id = id
        let peerAddress = socket.peerAddress
        self.peer = peerAddress?.description ?? "?"
        self.peerHost = peerAddress?.host ?? "?"
        self.socket = socket
        self.loop = loop
        self.services = services
        self.router = router
        self.logger = services.logger
        self.owner = owner
        self.encoder = FrameEncoder(maximumPayloadLength: configuration.maximumPayloadLength)
        self.tls = try services.tls.map { (context) throws(TLSError) in try TLSSession(context, isServer: true) }
        let limits = ConnectionStateMachine.Limits(
            maximumPayloadLength: configuration.maximumPayloadLength,
            maximumCallsInFlight: configuration.maximumCallsInFlight,
            frameDeadline: Self.nanoseconds(configuration.frameDeadline),
            idleTimeout: Self.nanoseconds(configuration.idleTimeout),
            handshakeDeadline: Self.nanoseconds(configuration.handshakeDeadline))
        self.machine = ConnectionStateMachine(limits: limits, now: EventLoop.now()) {
            WaterV1.HandshakeResponse(
                protocolVersion: WireProtocol.version, serverName: "water-server",
                maxFrameLength: UInt32(configuration.maximumPayloadLength),
                maxCallsInFlight: UInt32(configuration.maximumCallsInFlight), serverTimeUnixMs: services.now(),
                householdTimeZone: configuration.householdTimeZone.identifier)
        }
    }

    /// Starts reading; with `refusal`, answers it at once and closes instead.
    func start(refusing refusal: WaterError? = nil) throws(SocketError) {
        loop.preconditionInLoop()
        // Over TLS even a refusal needs the handshake first: it reads until then.
        token = try loop.register(
            socket.descriptor, readable: refusal == nil || tls != nil, writable: false, handler: self)
        if tls != nil {
            // A peer that never finishes TLS is closed at the handshake deadline; the machine
            // cannot tell it a status without TLS, and a refused one has no timer of its own.
            let deadline = EventLoop.now() + Self.nanoseconds(services.configuration.handshakeDeadline)
            tlsTimer = loop.schedule(at: deadline) { [weak self] in
                guard let self else { return }
                self.tlsTimer = nil
                guard !self.isTLSReady else { return }
                self.logger.info(
                    "connection error", ["peer": self.peer, "error": "TLS handshake not finished in time"])
                self.close()
            }
        }
        if let refusal {
            perform(machine.refuse(refusal))
        } else {
            armTimer()
        }
    }

    /// Stops taking calls; closes once the calls in flight have answered. Streams end now.
    func drain() {
        loop.preconditionInLoop()
        perform(machine.drain())
    }

    // MARK: Events from the loop

    func ready(_ event: EventLoop.Readiness) {
        // A hang-up is found by reading, even while reading is paused.
        if event.readable || event.failed { readAvailable(evenIfPaused: event.failed) }
        if event.writable { flush() }
    }

    private func readAvailable(evenIfPaused: Bool = false) {
        var total = 0
        let buffer = owner.readBuffer
        while !isClosed, isReading || evenIfPaused, total < Self.readBudget {
            let result = Result { () throws(SocketError) in try socket.read(into: buffer) }
            switch result {
            case .success(nil):
                return armTimer()
            case .success(0):
                return peerClosed(nil)
            case .success(let count?):
                total += count
                let received = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if let tls {
                    guard decrypt(received, with: tls) else { return }
                } else {
                    perform(machine.bytesReceived(received, now: EventLoop.now()))
                }
                if count < buffer.count { return armTimer() }  // drained: the next read would say EAGAIN
            case .failure(let error):
                return peerClosed(error)
            }
        }
        armTimer()
    }

    /// Ciphertext from the peer: moves the handshake on, then hands the plaintext to the
    /// machine. Returns false when the connection is closing.
    private func decrypt(_ ciphertext: UnsafeRawBufferPointer, with tls: TLSSession) -> Bool {
        do throws(TLSError) {
            try tls.feed(ciphertext)
            if !isTLSReady {
                guard try tls.handshake() == .done else {
                    sendCiphertext(tls.takeOutput())
                    return true
                }
                isTLSReady = true
                if let tlsTimer { loop.cancel(tlsTimer) }
                tlsTimer = nil
                sendCiphertext(tls.takeOutput())
                if !waitingForTLS.isEmpty {
                    try tls.write(waitingForTLS)
                    waitingForTLS = []
                    sendCiphertext(tls.takeOutput())
                }
                if closeWhenFlushed { stopReading() }
            }
            let plaintext = owner.plaintextBuffer
            while !isClosed {
                guard let count = tls.read(into: plaintext) else {
                    peerClosed(nil)
                    return false
                }
                if count == 0 { break }
                perform(
                    machine.bytesReceived(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]), now: EventLoop.now()))
            }
            sendCiphertext(tls.takeOutput())  // session tickets, key updates
            return true
        } catch {
            logger.info("connection error", ["peer": peer, "error": error.description])
            sendCiphertext(tls.takeOutput())  // the alert that says why
            closeWhenFlushed = true
            stopReading()
            perform(machine.peerClosed())
            owner.needsFlush(self)
            return false
        }
    }

    private func sendCiphertext(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output += bytes
        owner.needsFlush(self)
    }

    private func peerClosed(_ error: SocketError?) {
        if machine.isInsideFrame {
            logger.info(
                "connection error",
                ["peer": peer, "error": "closed inside a frame", "cause": error?.description ?? "end of stream"])
        } else if let error {
            logger.info("connection error", ["peer": peer, "error": error.description])
        }
        perform(machine.peerClosed())
        close()
    }

    /// A handler's reply, from any thread.
    private func deliver(_ envelope: WaterV1.ResponseEnvelope, method: String) {
        guard loop.inLoop else { return loop.execute { self.deliver(envelope, method: method) } }
        perform(machine.replyReady(envelope, now: EventLoop.now()), method: method)
        armTimer()
    }

    // MARK: Actions

    private func perform(_ actions: [ConnectionStateMachine.Action], method: String? = nil) {
        for action in actions {
            switch action {
            case .send(let envelope):
                if envelope.endOfStream {
                    cancelHandlers[envelope.callID] = nil
                    if envelope.statusCode != .ok {
                        logger.info(
                            "call failed",
                            [
                                "rpc.method": method ?? "?", "rpc.code": "\(envelope.statusCode)",
                                "peer": peer, "message": envelope.status?.message ?? "",
                            ])
                    }
                }
                enqueue(envelope)
            case .dispatch(let call):
                dispatch(call)
            case .cancelCall(let callID):
                cancelHandlers.removeValue(forKey: callID)?.forEach { $0() }
            case .close(let reason):
                if let reason {
                    logger.info(
                        "connection error", ["peer": peer, "rpc.code": "\(reason.code)", "message": reason.message])
                }
                closeWhenFlushed = true
                // Over TLS, a refusal waits for the handshake, which needs reading.
                if tls == nil || isTLSReady { stopReading() }
                owner.needsFlush(self)
            }
        }
    }

    private func dispatch(_ call: IncomingCall) {
        let method = call.method!
        // A call that ends before reaching a handler.
        func refuse(_ error: WaterError) {
            perform(
                machine.replyReady(WaterV1.ResponseEnvelope(callID: call.callID, error: error), now: EventLoop.now()),
                method: method.fullName)
        }
        guard let handler = router.handler(for: method) else {
            return refuse(WaterError(.unimplemented, "\(method.fullName) is not available on this server yet"))
        }
        let now = services.now()
        var caller: Caller?
        if handler.access != .anyone {
            switch services.authenticate(call.envelope.authToken, now: now) {
            case .success(let found): caller = found
            case .failure(let error): return refuse(error)
            }
            if handler.access == .admin, caller?.account.role != .admin {
                return refuse(WaterError(.permissionDenied, "only an admin may call \(method.name)"))
            }
        }
        let callID = call.callID
        let responder = Responder(
            callID: callID, method: method.fullName,
            deliver: { [self] envelope in deliver(envelope, method: method.fullName) },
            onCancel: { [self] cancel in
                guard loop.inLoop else {
                    return loop.execute { self.cancelHandlers[callID, default: []].append(cancel) }
                }
                cancelHandlers[callID, default: []].append(cancel)
            })
        handler.handle(call, CallContext(caller: caller, now: now, peer: peer, peerHost: peerHost), responder)
    }

    // MARK: Output

    private func enqueue(_ envelope: WaterV1.ResponseEnvelope) {
        guard !isClosed else { return }
        let frame: [UInt8]
        do {
            frame = try encoder.encode(envelope.serializedBytes())
        } catch {
            // A reply over the frame limit: say so instead of sending what the client would refuse.
            let tooLarge = WaterV1.ResponseEnvelope(
                callID: envelope.callID, error: WaterError(.resourceExhausted, "the reply is too large to send"))
            frame = (try? encoder.encode(tooLarge.serializedBytes())) ?? []
        }
        if let tls {
            guard isTLSReady else {
                waitingForTLS += frame
                return
            }
            do throws(TLSError) {
                try tls.write(frame)
            } catch {
                logger.error("connection error", ["peer": peer, "error": error.description])
            }
            output += tls.takeOutput()
        } else {
            output += frame
        }
        if output.count - outputOffset > Self.maximumPendingOutput { stopReading() }
        owner.needsFlush(self)
    }

    /// Writes what the socket takes now; the rest waits for it to be writable.
    func flush() {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        while outputOffset < output.count {
            let offset = outputOffset
            let result = output.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(0): return watchWrites(true)
            case .success(let written): outputOffset += written
            case .failure(let error): return peerClosed(error)
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        watchWrites(false)
        if closeWhenFlushed, tls == nil || isTLSReady || !isReading { return close() }
        if !isReading, machine.isClosed == false {
            isReading = true
            loop.modify(socket.descriptor, token: token, readable: true, writable: isWatchingWrites)
        }
    }

    private func watchWrites(_ watching: Bool) {
        guard watching != isWatchingWrites else { return }
        isWatchingWrites = watching
        loop.modify(socket.descriptor, token: token, readable: isReading, writable: watching)
    }

    private func stopReading() {
        guard isReading else { return }
        isReading = false
        loop.modify(socket.descriptor, token: token, readable: false, writable: isWatchingWrites)
    }

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        for handlers in cancelHandlers.values { handlers.forEach { $0() } }
        cancelHandlers.removeAll()
        if let timer { loop.cancel(timer) }
        if let tlsTimer { loop.cancel(tlsTimer) }
        loop.deregister(socket.descriptor, token: token)
        socket.close()
        owner.closed(self)
    }

    // MARK: Deadlines

    /// Keeps one timer at the state machine's next deadline. Activity that only moves the
    /// deadline later leaves the timer where it is: it fires, finds nothing due, and re-arms,
    /// so an idle connection costs one wake-up per idle timeout and a busy one none.
    private func armTimer() {
        guard !isClosed, let deadline = machine.nextDeadline else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        if let timer { loop.cancel(timer) }
        timerDeadline = deadline
        timer = loop.schedule(at: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            perform(machine.deadlinePassed(now: EventLoop.now()))
            armTimer()
        }
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// What a ``Connection`` tells the server that owns it (both on the loop).
protocol ConnectionOwner: AnyObject {
    /// Where every connection of the loop reads into: one buffer, since one read runs at a time.
    var readBuffer: UnsafeMutableRawBufferPointer { get }
    /// Where TLS connections decrypt into, likewise shared.
    var plaintextBuffer: UnsafeMutableRawBufferPointer { get }
    /// The connection has output to write at the end of this turn.
    func needsFlush(_ connection: Connection)
    func closed(_ connection: Connection)
}
