import Dispatch
import Synchronization
import WaterCodec
import WaterProtocol
import WaterStore
import WaterTLS
import WaterTransport

/// What the event loop owns besides the connections themselves: the listening socket and its
/// back-off, who is admitted (``ConnectionAdmission``), the table of connections, which of them
/// have output to write this turn, whether this turn holds the committer's leadership, and the
/// shutdown. Every method runs on the loop (checked).
final class ConnectionRegistry: EventLoopHandler, ConnectionOwner, @unchecked Sendable {
    private let listener: Socket
    private let loop: EventLoop
    private let services: ServerServices
    private let router: Router
    private let stopped: DispatchSemaphore
    /// How many connections are open, for the status file (read off the loop).
    let count = Atomic<Int>(0)

    private var listenerToken: EventLoop.Token?
    private var connections: [UInt64: Connection] = [:]
    private var admission: ConnectionAdmission
    private let hello: () -> WaterV1.HandshakeResponse
    /// Refused connections, connections closed to make room and failed accepts are logged at
    /// most once per 10 s each.
    private var refusalLog = LogRateLimit(interval: 10 * 1_000_000_000)
    private var evictionLog = LogRateLimit(interval: 10 * 1_000_000_000)
    private var acceptFailureLog = LogRateLimit(interval: 10 * 1_000_000_000)
    /// Whether the listening socket is watched now (not while accept is backing off).
    private var isListening = false
    private var nextID: UInt64 = 1
    private var needingFlush: [Connection] = []
    /// The connections being flushed at the end of a turn (``needingFlush`` of the turn).
    private var flushing: [Connection] = []
    /// Whose replies wait for which group of the log.
    private var held = HeldReplies<Connection>()
    /// Each member's share of a turn, across their connections.
    private var loopShares = LoopShares()
    private var isShuttingDown: Bool { admission.isShuttingDown }
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let plaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let decodeArena = WireArena(initialBlockSize: 4096)
    let replyArena = WireArena(initialBlockSize: 4096)

    init(listener: Socket, loop: EventLoop, services: ServerServices, router: Router, stopped: DispatchSemaphore) {
        (self.listener, self.loop, self.services, self.router, self.stopped) = (
            listener, loop, services, router, stopped
        )
        admission = ConnectionAdmission(limits: services.configuration.admissionLimits)
        hello = Self.hello(services)
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
    }

    func startAccepting() {
        loop.preconditionInLoop()
        do {
            listenerToken = try loop.register(listener.descriptor, readable: true, writable: false, handler: self)
            isListening = true
        } catch {
            services.logger.error("accept failed", ["error": error.description])
        }
    }

    // MARK: The turn

    /// A turn ends: every reply made in it waits for the group holding everything queued by
    /// now (whatever the turn's handlers saw, and the turn's own writes), which the committer's
    /// writer, woken now for the whole turn, is syncing or will take next; replies whose group
    /// is durable already go at once. A lone write the loop commits itself is durable here.
    func turnEnded() {
        loop.preconditionInLoop()
        let committer = services.store.committer
        let publication = committer.publishTurn(deliveredThrough: held.durableGroup)
        // Swapped, so that both arrays keep their capacity and a turn allocates nothing here.
        swap(&flushing, &needingFlush)
        held.turnEnded(publication, group: committer.lastQueuedGroup, holders: flushing)
        flushing.removeAll(keepingCapacity: true)
        if case .committedHere(let outcome) = publication {
            committer.notices.finished(outcome.group, succeeded: outcome.succeeded)
        }
    }

    /// The committer's writer made a group durable, or failed (some of) it: its replies go, and
    /// only then does anyone else hear of its writes (``DurableNotices``).
    func groupCommitted(_ outcome: GroupOutcome) {
        loop.preconditionInLoop()
        held.groupCommitted(outcome)
        services.store.committer.notices.finished(outcome.group, succeeded: outcome.succeeded)
    }

    // MARK: Connections

    /// How long the listener rests after accept failed (EMFILE, ENFILE, ENOBUFS, ...).
    static let acceptPause: UInt64 = 100_000_000

    /// The listening socket is readable: accept everything waiting.
    func ready(_ event: EventLoop.Readiness) {
        while isListening {
            let socket: Socket
            do throws(SocketError) {
                guard let accepted = try listener.accept() else { return }
                socket = accepted
            } catch {
                return acceptFailed(error)
            }
            accepted(socket)
        }
    }

    /// Accept failed, most likely for want of descriptors (EMFILE, ENFILE): the connection
    /// stays in the kernel's queue and the listener, level-triggered, would be ready again at
    /// once, a spinning core. The listener is left unwatched for ``acceptPause`` instead (as
    /// nginx disables its accept events), then tried again. Not libuv's spare descriptor
    /// (closed, then accept and close everything queued): that drops members' connections
    /// waiting in the queue along with the attacker's, and the hashing and store threads could
    /// take the spare between its close and the accept. The queue is bounded by the backlog;
    /// a descriptor frees as soon as a connection closes.
    private func acceptFailed(_ error: SocketError) {
        let now = EventLoop.now()
        if let failures = acceptFailureLog.event(now: now) {
            services.logger.error(
                "accept failed; not accepting for 100 ms at a time until it works",
                ["error": error.description, "failures": "\(failures)"])
        }
        guard let listenerToken else { return }
        isListening = false
        loop.modify(listener.descriptor, token: listenerToken, readable: false, writable: false)
        loop.schedule(at: now + Self.acceptPause) { [self] in
            guard let token = self.listenerToken, !self.isListening else { return }
            self.isListening = true
            self.loop.modify(self.listener.descriptor, token: token, readable: true, writable: false)
        }
    }

    /// A new connection: admitted and started (once a connection that has not logged in is
    /// closed to make room, when admission says so), or refused and closed at once, without
    /// being registered or counted (``ConnectionStateMachine/refused(_:)`` says what it is told).
    private func accepted(_ socket: Socket) {
        let peerAddress = socket.peerAddress
        let peerHost = peerAddress?.host ?? "?"
        let now = EventLoop.now()
        var machine = ConnectionStateMachine(
            limits: services.configuration.connectionLimits, now: now, tls: services.tls != nil,
            hello: hello)
        switch admission.decision(for: peerHost, isIdle: { connections[$0]?.hasCallsInFlight != true }) {
        case .admit: break
        case .admitClosing(let id):
            if let victim = connections[id] { evict(victim, for: peerAddress, now: now) }
        case .refuse(let refusal):
            services.refusals.refused(admission.isAddressFull(peerHost) ? .perAddress : .atCap)
            if let refused = refusalLog.event(now: now) {
                services.logger.info(
                    "connection refused",
                    ["peer": peerAddress?.description ?? "?", "reason": refusal.message, "refused": "\(refused)"])
            }
            return refuse(socket, machine.refused(refusal))
        }
        let connection: Connection
        do throws(TLSError) {
            connection = try Connection(
                id: nextID, socket: socket, peer: peerAddress, machine: machine, loop: loop, services: services,
                router: router, owner: self)
        } catch {
            services.logger.error("connection failed", ["error": error.description])
            return socket.close()
        }
        nextID += 1
        connections[connection.id] = connection
        admission.admitted(connection.id, from: peerHost)
        count.store(connections.count, ordering: .relaxed)
        do {
            try connection.start()
        } catch {
            services.logger.error("connection failed", ["peer": connection.peer, "error": error.description])
            forget(connection)
            socket.close()
        }
    }

    /// Closes `victim`, which has not logged in, so that a new connection from `newcomer` fits
    /// (it closes at once, and is forgotten before this returns).
    private func evict(_ victim: Connection, for newcomer: HostPort?, now: UInt64) {
        if let evicted = evictionLog.event(now: now) {
            let (unauthenticated, pending) = (admission.unauthenticatedCount, admission.pendingCount)
            services.logger.info(
                "connection closed to make room",
                [
                    "peer": victim.peer, "for": newcomer?.description ?? "?",
                    "reason":
                        "\(unauthenticated) connections have not logged in, \(pending) of them in their handshake",
                    "closed": "\(evicted)",
                ])
        }
        victim.evict()
    }

    /// Carries out a refusal on a socket nothing else knows: its status in one write the
    /// fresh socket takes whole (plaintext), then the close.
    private func refuse(_ socket: Socket, _ actions: [ConnectionStateMachine.Action]) {
        var bytes: [UInt8] = []
        for action in actions {
            switch action {
            case .send(let envelope):
                var sink = ReplySink(
                    writer: FrameWriter(maximumPayloadLength: services.configuration.maximumPayloadLength),
                    arena: replyArena)
                sink.reply(envelope)
                bytes += sink.output
            case .closeNow:
                _ = bytes.withUnsafeBytes { try? socket.write($0) }
                socket.close()
            default:
                preconditionFailure("a refused connection only sends its status and closes")
            }
        }
    }

    /// The handshake reply of this server, one closure shared by every connection.
    private static func hello(_ services: ServerServices) -> () -> WaterV1.HandshakeResponse {
        let configuration = services.configuration
        return {
            WaterV1.HandshakeResponse(
                protocolVersion: WireProtocol.version, serverName: "water-server",
                maxFrameLength: UInt32(configuration.maximumPayloadLength),
                maxCallsInFlight: UInt32(configuration.maximumCallsInFlight), serverTimeUnixMs: services.now(),
                householdTimeZone: configuration.householdTimeZone.identifier)
        }
    }

    private func forget(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        count.store(connections.count, ordering: .relaxed)
        if admission.closed(connection.id) { services.refusals.refused(.handshakeFailed) }
    }

    func handshakeCompleted(_ connection: Connection) {
        admission.handshakeCompleted(connection.id)
    }

    func loggedIn(_ connection: Connection) {
        admission.loggedIn(connection.id)
    }

    func hasLoopShare(_ member: UInt64, inTurn turn: UInt64) -> Bool {
        loopShares.hasShare(member, inTurn: turn)
    }

    func chargeLoopShare(_ member: UInt64, nanoseconds: UInt64, inTurn turn: UInt64) {
        loopShares.charge(member, nanoseconds: nanoseconds, inTurn: turn)
    }

    func needsFlush(_ connection: Connection) {
        needingFlush.append(connection)
    }

    func closed(_ connection: Connection) {
        forget(connection)
        if isShuttingDown, connections.isEmpty { stopped.signal() }
    }

    /// Stops accepting and drains every connection; signals `stopped` once all have closed.
    func drainAll() {
        loop.preconditionInLoop()
        guard !isShuttingDown else { return }
        admission.isShuttingDown = true
        isListening = false
        if let listenerToken {
            loop.deregister(listener.descriptor, token: listenerToken)
            listener.close()
            self.listenerToken = nil
        }
        services.logger.info("shutting down", ["connections": "\(connections.count)"])
        if connections.isEmpty {
            stopped.signal()
            return
        }
        for connection in Array(connections.values) { connection.drain() }
    }
}
