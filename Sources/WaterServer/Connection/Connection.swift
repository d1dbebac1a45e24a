import WaterCodec
import WaterCore
import WaterLog
import WaterProtocol
import WaterTLS
import WaterTransport

/// One admitted client connection, owned by the server's event loop: its socket, its
/// ``ConnectionStateMachine``, its buffers and its deadline timer are touched on the loop only
/// (each entry point checks). The machine decides everything about the connection's life (TLS
/// phase, handshake, limits, deadlines, when to close); this class carries out its actions on
/// the socket and the TLS session. Handlers that answer later do so from anywhere through the
/// ``Responder`` it hands them, which goes back to the loop when called elsewhere.
///
/// Replies are framed into ``replies`` as they are made. At the end of a turn each is tagged
/// with the group of the log that holds everything queued by then (``endTurn(holdingFor:durable:)``),
/// and it is handed to the socket only once that group is durable (``release(upTo:failed:)``):
/// a reply never shows a write that is not on disk, and when its group failed, a reply that
/// showed it becomes an error before anything leaves. Replies leave in the order they were
/// made.
///
/// Streams go at the pace the peer reads: each message's next is made only while the unsent
/// bytes are under the watermarks (``OutputWatermarks``); the connection keeps the paused ones.
final class Connection: EventLoopHandler, HoldsReplies, @unchecked Sendable {
    let id: UInt64
    let peer: String
    /// The peer's address without the port: what connection limits and login throttling count.
    let peerHost: String
    private let socket: Socket
    private let loop: EventLoop
    private let services: ServerServices
    private let router: Router
    /// Where lines about this peer go, within the rate limit of lines peers may cause.
    private let peerLog: PeerLog
    /// For the one line a connection logs at most once (a member's streams paused).
    private let logger: Logger
    /// Where this connection asks to be flushed, and says it closed.
    private unowned let owner: ConnectionOwner

    private var machine: ConnectionStateMachine
    /// The TLS session under the frames; nil when serving plaintext on loopback.
    private let tls: TLSSession?
    /// The member whose token its last call carried: whose share of the loop its frames take
    /// (``LoopShares``); nil until a call proves who it is.
    private var member: UInt64?
    private var token: EventLoop.Token = 0
    /// The replies not yet handed to the socket, framed: those waiting for their group, then
    /// this turn's.
    private var replies: ReplySink
    /// Each reply in ``replies``, in order: its call, its bytes, whether it shows what a group
    /// makes durable (a handler's on the loop) and so must fail with it, and the group it waits
    /// for (nil: made this turn, not tagged yet).
    private var pendingReplies = PendingReplies()
    /// Bytes for the socket (ciphertext over TLS), from earlier turns.
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var isWatchingWrites = false
    private var isReading = true
    private var isClosed = false
    private var isResumeScheduled = false
    /// Whether the owner will call ``endTurn(holdingFor:durable:)`` at the end of this turn.
    var isQueuedForFlush = false
    /// Whether the owner lists it among the connections whose replies wait for a group.
    var isInHolding = false
    /// What each call's handler asked to run if the call ends without it (cancel, close).
    private var cancelHandlers: [UInt64: [@Sendable () -> Void]] = [:]
    private var timer: TimerQueue.ID?
    private var timerDeadline: UInt64?
    /// Whether its streams may produce (its unsent bytes against the watermarks), and whether
    /// a peer that stopped reading has been stuck too long.
    private var watermarks = OutputWatermarks()
    /// What each stream paused by the watermarks runs to make its next message, in the order
    /// they paused: run once the connection is writable again.
    private var pausedStreams: [(callID: UInt64, resume: @Sendable () -> Void)] = []
    /// Closes the connection once it has been stalled for the stall timeout.
    private var stallTimer: TimerQueue.ID?
    private var hasLoggedPause = false

    /// Reading stops while this much waits to be written: a peer that does not read its
    /// replies cannot make the server buffer without bound.
    static let maximumPendingOutput = 4 << 20
    /// Read at most this much per turn, so one busy peer cannot starve the others.
    private static let readBudget = 256 * 1024

    /// A connection the owner admitted, from `peerAddress`, with the machine it made for it.
    init(
        id: UInt64, socket: Socket, peer peerAddress: HostPort?, machine: ConnectionStateMachine, loop: EventLoop,
        services: ServerServices, router: Router, owner: ConnectionOwner
    ) throws(TLSError) {
        let configuration = services.configuration
        self.id = id
        self.peer = peerAddress?.description ?? "?"
        self.peerHost = peerAddress?.host ?? "?"
        self.socket = socket
        self.loop = loop
        self.services = services
        self.router = router
        self.peerLog = services.peerLog
        self.logger = services.logger
        self.owner = owner
        self.replies = ReplySink(
            writer: FrameWriter(maximumPayloadLength: configuration.maximumPayloadLength), arena: owner.replyArena)
        self.tls = try services.tls.map { (context) throws(TLSError) in try TLSSession(context, isServer: true) }
        precondition(
            machine.isAwaitingTLS == (tls != nil), "the machine starts with TLS exactly when the socket has it")
        self.machine = machine
    }

    /// Starts reading, with a timer at the machine's first deadline (the handshake's).
    func start() throws(SocketError) {
        loop.preconditionInLoop()
        token = try loop.register(socket.descriptor, readable: true, writable: false, handler: self)
        armTimer()
    }

    /// Stops taking calls; closes once the calls in flight have answered. Streams end now.
    func drain() {
        loop.preconditionInLoop()
        perform(machine.drain())
    }

    /// Closes it now to make room for a new connection (it has not logged in).
    func evict() {
        loop.preconditionInLoop()
        perform(machine.evicted())
    }

    /// Whether a call is in flight (a connection with none is idle).
    var hasCallsInFlight: Bool { machine.callsInFlight > 0 }

    // MARK: Events from the loop

    func ready(_ event: EventLoop.Readiness) {
        machine.turnStarted(loop.turnNumber)
        // A hang-up is found by reading, even while reading is paused.
        if event.readable || event.failed { readAvailable(evenIfPaused: event.failed) }
        if event.writable { writeOutput() }
    }

    private func readAvailable(evenIfPaused: Bool = false) {
        var total = 0
        let buffer = owner.readBuffer
        while !isClosed, isReading || evenIfPaused, total < Self.readBudget, mayTakeFrames {
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
                    self.received(received)
                }
                if count < buffer.count { return armTimer() }  // drained: the next read would say EAGAIN
            case .failure(let error):
                return peerClosed(error)
            }
        }
        armTimer()
    }

    /// Plaintext from the peer: every frame in it, up to this turn's budget. The rest waits in
    /// the machine's decoder for the next turn (which ``resumeNextTurn()`` makes happen even if
    /// nothing more arrives).
    private func received(_ bytes: UnsafeRawBufferPointer) {
        let now = EventLoop.now()
        machine.received(bytes, now: now)
        takeFrames(now: now)
    }

    /// Whether frames may be taken in this turn: the machine's frame budget is not spent, and
    /// the member it calls as has time left of their share of the turn.
    private var mayTakeFrames: Bool {
        machine.hasFrameBudget && (member.map { owner.hasLoopShare($0, inTurn: loop.turnNumber) } ?? true)
    }

    private func takeFrames(now: UInt64) {
        let arena = owner.decodeArena
        while !isClosed {
            if let member, !owner.hasLoopShare(member, inTurn: loop.turnNumber) { return resumeNextTurn() }
            arena.reset()
            switch machine.nextFrame(arena: arena, now: now) {
            case .needMoreBytes: return
            case .budgetSpent: return resumeNextTurn()
            case .call(let envelope, let method): dispatch(envelope, method)
            case .actions(let actions): perform(actions)
            }
        }
    }

    /// Takes the frames left over from a turn that spent its budget, in the next turn.
    private func resumeNextTurn() {
        // The budget is the machine's, per loop turn (its number), so it comes back in the next
        // turn whether or not any of these frames had a reply (cancels of calls not in flight).
        guard !isResumeScheduled else { return }
        isResumeScheduled = true
        loop.execute { [weak self] in
            guard let self else { return }
            self.isResumeScheduled = false
            self.machine.turnStarted(self.loop.turnNumber)
            self.takeFrames(now: EventLoop.now())
        }
    }

    /// Ciphertext from the peer: moves the handshake on, then hands the plaintext on. Returns
    /// false when the connection is closing.
    private func decrypt(_ ciphertext: UnsafeRawBufferPointer, with tls: TLSSession) -> Bool {
        do throws(TLSError) {
            try tls.feed(ciphertext)
            if machine.isAwaitingTLS {
                guard try tls.handshake() == .done else {
                    sendCiphertext(tls.takeOutput())
                    return true
                }
                machine.tlsHandshakeCompleted(now: EventLoop.now())
                sendCiphertext(tls.takeOutput())
            }
            let plaintext = owner.plaintextBuffer
            while !isClosed {
                guard let count = tls.read(into: plaintext) else {
                    peerClosed(nil)
                    return false
                }
                if count == 0 { break }
                received(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]))
            }
            sendCiphertext(tls.takeOutput())  // session tickets, key updates
            return true
        } catch {
            log(.info, "connection error", ["peer": peer, "error": error.description])
            sendCiphertext(tls.takeOutput())  // the alert that says why
            perform(machine.tlsFailed())
            return false
        }
    }

    /// Bytes of the TLS layer itself (handshake, alerts, tickets): not replies, so they wait
    /// for no commit.
    private func sendCiphertext(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output += bytes
        owner.needsFlush(self)
    }

    private func peerClosed(_ error: SocketError?) {
        if machine.isInsideFrame {
            log(
                .info, "connection error",
                ["peer": peer, "error": "closed inside a frame", "cause": error?.description ?? "end of stream"])
        } else if let error {
            log(.info, "connection error", ["peer": peer, "error": error.description])
        }
        perform(machine.peerClosed())
        close()
    }

    /// A reply of a handler that answers later, from any thread.
    private func deliver(_ envelope: WaterV1.ResponseEnvelope, failure: WaterError?, method: MethodDescriptor) {
        guard loop.inLoop else { return loop.execute { self.deliver(envelope, failure: failure, method: method) } }
        if let failure { logCause(method.fullName, failure) }
        // A Login that worked makes the connection a member's.
        if method == WaterV1.LoginRequest.method, envelope.endOfStream, envelope.statusCode == .ok {
            perform(machine.loggedIn())
        }
        perform(machine.replyReady(envelope, now: EventLoop.now()), method: method)
        armTimer()
    }

    /// A stream's next message, framed where it was made: queued as any reply that waits for
    /// no commit, then `next` runs now if the connection is writable, else once it is again.
    /// A call that has ended drops it, and its stream stops there.
    private func deliverFramed(_ callID: UInt64, _ bytes: [UInt8], next: @escaping @Sendable () -> Void) {
        guard loop.inLoop else { return loop.execute { self.deliverFramed(callID, bytes, next: next) } }
        guard !isClosed, machine.isInFlight(callID) else { return }
        let start = replies.output.count
        replies.output += bytes
        pendingReplies.append(callID, bytes: start..<replies.output.count)
        owner.needsFlush(self)
        limitPendingOutput()
        guard watermarks.isWritable else {
            if !hasLoggedPause {
                // Once per connection: a slow reader pauses often, and the log stays readable.
                hasLoggedPause = true
                logger.info(
                    "streams paused", ["peer": peer, "unsent": "\(unsentBytes)", "reason": "the peer is not reading"])
            }
            return pausedStreams.append((callID, next))
        }
        next()
    }

    /// A unary call's one reply, framed where it was made (a read off the loop): it ends the
    /// call as a reply made on the loop would, and waits for no commit of its own (the turn's
    /// group holds every write the read could have seen). Dropped when the call has ended.
    private func deliverFramedReply(_ callID: UInt64, _ method: MethodDescriptor, _ bytes: [UInt8]) {
        guard loop.inLoop else { return loop.execute { self.deliverFramedReply(callID, method, bytes) } }
        guard !isClosed, machine.isInFlight(callID) else { return }
        cancelHandlers[callID] = nil
        let start = replies.output.count
        replies.reply(framed: bytes)
        answered(callID, method, from: start)
        armTimer()
    }

    /// The server ends a call its handler has not finished (``Responder/end(_:)``), from any thread.
    private func endCall(_ callID: UInt64, _ method: MethodDescriptor, _ error: WaterError) {
        guard loop.inLoop else { return loop.execute { self.endCall(callID, method, error) } }
        guard !isClosed else { return }
        perform(machine.callEnded(callID, error), method: method)
        armTimer()
    }

    // MARK: Calls

    /// Runs a call where its envelope was decoded: checks who calls, then runs its handler,
    /// on the loop (the reply is written at once into this turn's replies) or later.
    private func dispatch(_ envelope: RequestEnvelopeView, _ method: MethodDescriptor) {
        let callID = envelope.callID
        guard let handler = router.handler(for: method) else {
            return answer(
                callID, method, WaterError(.unimplemented, "\(method.fullName) is not available on this server yet"))
        }
        let now = services.now()
        var caller: Caller?
        if handler.access != .anyone {
            switch services.authenticate(envelope.authToken, now: now) {
            case .success(let found):
                caller = found
                member = found.account.id
                perform(machine.loggedIn())
            case .failure(let error):
                return answer(callID, method, error)
            }
            if handler.access == .admin, caller?.account.role != .admin {
                return answer(
                    callID, method,
                    WaterError(.permissionDenied, "only an admin may do that; ask an admin of the household"))
            }
        }
        let context = CallContext(caller: caller, now: now, peer: peer, peerHost: peerHost)
        switch handler.kind {
        case .onLoop(let handle):
            let start = replies.output.count
            let began = EventLoop.now()
            handle(
                LoopCall(envelope: envelope, arena: owner.decodeArena, limits: machine.decodeLimits), context, &replies)
            if let member {
                owner.chargeLoopShare(member, nanoseconds: EventLoop.now() - began, inTurn: loop.turnNumber)
            }
            // The newest group queued now holds every write it saw, its own included.
            answered(callID, method, from: start, seen: services.store.committer.lastQueuedGroup)
        case .later(let handle):
            let responder = Responder(
                callID: callID, method: method.fullName,
                deliver: { [self] envelope, failure in deliver(envelope, failure: failure, method: method) },
                deliverFramed: { [self] bytes, next in deliverFramed(callID, bytes, next: next) },
                writer: replies.writer,
                onCancel: { [self] cancel in
                    guard loop.inLoop else {
                        return loop.execute { self.cancelHandlers[callID, default: []].append(cancel) }
                    }
                    cancelHandlers[callID, default: []].append(cancel)
                },
                deliverFramedReply: { [self] bytes in deliverFramedReply(callID, method, bytes) },
                ending: { [self] error in endCall(callID, method, error) })
            handle(IncomingCall(copying: envelope, method: method, limits: machine.decodeLimits), context, responder)
        }
    }

    /// Ends a call before it reaches a handler.
    private func answer(_ callID: UInt64, _ method: MethodDescriptor, _ error: WaterError) {
        let start = replies.output.count
        replies.reply(callID, error: error)
        answered(callID, method, from: start)
    }

    /// A call answered at once: its reply is in ``replies`` from `start` on; `seen`, for a
    /// handler's on the loop, is the newest group of the log queued when it answered.
    private func answered(_ callID: UInt64, _ method: MethodDescriptor, from start: Int, seen: UInt64? = nil) {
        pendingReplies.append(callID, bytes: start..<replies.output.count, seen: seen)
        if let refusal = replies.refusal {
            logCause(method.fullName, refusal)
            logFailure(method.fullName, refusal.code, refusal.message)
        }
        owner.needsFlush(self)
        if machine.callAnswered(callID, now: EventLoop.now()) { perform([.close(reason: nil)]) }
        limitPendingOutput()
    }

    private func logFailure(_ method: String, _ code: WaterV1.StatusCode, _ message: String) {
        log(.info, "call failed", ["rpc.method": method, "rpc.code": "\(code)", "peer": peer, "message": message])
    }

    /// A call the server itself failed (its disk, an unexpected error): what failed beneath, at
    /// error level, beside the "call failed" line that says what the client was told.
    private func logCause(_ method: String, _ error: WaterError) {
        guard let cause = error.cause else { return }
        log(.error, "server failure", ["rpc.method": method, "rpc.code": "\(error.code)", "cause": "\(cause)"])
    }

    // MARK: Actions

    private func perform(_ actions: [ConnectionStateMachine.Action], method: MethodDescriptor? = nil) {
        for action in actions {
            switch action {
            case .send(let envelope):
                if envelope.endOfStream {
                    cancelHandlers[envelope.callID] = nil
                    if envelope.statusCode != .ok {
                        logFailure(method?.fullName ?? "?", envelope.statusCode, envelope.status?.message ?? "")
                    }
                }
                enqueue(envelope)
            case .dispatch(let call):
                // The machine hands calls over in their envelopes (nextFrame); this one came
                // copied already, so it is run as a handler that answers later would be.
                preconditionFailure("call \(call.callID) was dispatched copied")
            case .cancelCall(let callID):
                cancelHandlers.removeValue(forKey: callID)?.forEach { $0() }
                pausedStreams.removeAll { $0.callID == callID }  // and what it holds goes now
            case .handshakeCompleted:
                owner.handshakeCompleted(self)
            case .loggedIn:
                owner.loggedIn(self)
            case .close(let reason):
                logClose(reason)
                stopReading()
                owner.needsFlush(self)
            case .closeNow(let reason):
                logClose(reason)
                writeWhatTheSocketTakes()
                close()
            }
        }
    }

    private func logClose(_ reason: WaterError?) {
        guard let reason else { return }
        log(.info, "connection error", ["peer": peer, "rpc.code": "\(reason.code)", "message": reason.message])
    }

    /// A reply the machine made, or one a handler delivered later: it depends on no commit of
    /// this turn (a handler that answers later waits for its own).
    private func enqueue(_ envelope: ResponseEnvelope) {
        guard !isClosed else { return }
        let start = replies.output.count
        replies.reply(envelope)
        pendingReplies.append(envelope.callID, bytes: start..<replies.output.count)
        owner.needsFlush(self)
        limitPendingOutput()
    }

    private func limitPendingOutput() {
        if unsentBytes > Self.maximumPendingOutput { stopReading() }
        unsentChanged()
    }

    /// What waits to be taken by the socket: the replies not handed to it yet, and the bytes
    /// for it (ciphertext over TLS).
    var unsentBytes: Int { output.count - outputOffset + replies.output.count }

    /// Tells the watermarks the new count: resumes the paused streams when the connection is
    /// writable again, and keeps the stall timer armed while it is stuck.
    private func unsentChanged() {
        if watermarks.unsentChanged(to: unsentBytes, now: EventLoop.now()) == .becameWritable {
            let resumed = pausedStreams
            pausedStreams.removeAll()
            for stream in resumed where machine.isInFlight(stream.callID) { stream.resume() }
        }
        guard stallTimer == nil, let deadline = watermarks.stallDeadline else { return }
        stallTimer = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            self.stallTimer = nil
            guard !self.isClosed else { return }
            guard self.watermarks.isStalled(now: EventLoop.now()) else { return self.unsentChanged() }
            // It has read nothing for that long: a status would wait behind what it does not read.
            self.log(
                .info, "connection error",
                [
                    "peer": self.peer, "unsent": "\(self.unsentBytes)",
                    "error": "read nothing for \(Duration.nanoseconds(Int64(self.watermarks.limits.stallTimeout)))",
                ])
            self.perform(self.machine.peerClosed())
            self.close()
        }
    }

    // MARK: Output

    /// The turn is over: its replies wait for the group they saw, or `group` (the newest with
    /// anything queued); those whose group is durable by now (`durable`) go at once.
    func endTurn(holdingFor group: UInt64, durable: UInt64) {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        pendingReplies.endTurn(holdingFor: group)
        release(upTo: durable, failed: [])
    }

    /// Whether replies wait for a group.
    var isHoldingReplies: Bool { pendingReplies.isHolding && !isClosed }

    /// Whether a reply waits for `group` or an earlier one.
    func isHolding(forGroup group: UInt64) -> Bool {
        pendingReplies.isHolding(forGroup: group)
    }

    /// Groups up to `durable` are done: the replies that waited for them go to the socket, in
    /// order, each as it was made, or as a refusal when it showed the writes of a group in
    /// `failed`.
    func release(upTo durable: UInt64, failed: [UInt64]) {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        // Nothing can be sent before TLS is done, nor after it failed.
        guard machine.canSendReplies else { return writeOutput() }
        let count = pendingReplies.releasable(upTo: durable)
        guard count > 0 else { return writeOutput() }
        if !failed.isEmpty, (0..<count).contains(where: { pendingReplies.isRefused($0, failed: failed) }) {
            refuseReplies(count, failed: failed)
        }
        let end = pendingReplies.replies[count - 1].bytes.upperBound
        let isEverything = end == replies.output.count
        if let tls {
            do throws(TLSError) {
                try tls.write(isEverything ? replies.output : Array(replies.output[0..<end]))
            } catch {
                log(.error, "connection error", ["peer": peer, "error": error.description])
            }
            output += tls.takeOutput()
        } else if output.count == outputOffset, isEverything {
            output.removeAll(keepingCapacity: true)
            outputOffset = 0
            swap(&output, &replies.output)
        } else {
            output.append(contentsOf: replies.output[0..<end])
        }
        // What is left moves to the front.
        if isEverything {
            replies.output.removeAll(keepingCapacity: replies.output.capacity <= 1 << 20)
        } else {
            replies.output.removeSubrange(0..<end)
        }
        pendingReplies.sent(count, bytes: end)
        writeOutput()
    }

    /// The first `count` replies go out, but those that showed the writes of a failed group say
    /// instead that nothing was saved.
    private func refuseReplies(_ count: Int, failed: [UInt64]) {
        let refusal = WaterError(
            .internal,
            "the server could not save this (its disk refused the write), so nothing was changed; try again, "
                + "and tell an admin if it keeps failing")
        var rebuilt = ReplySink(writer: replies.writer, arena: replies.arena)
        for (index, reply) in pendingReplies.replies.enumerated() {
            let start = rebuilt.output.count
            let isRefused = index < count && pendingReplies.isRefused(index, failed: failed)
            if isRefused {
                rebuilt.reply(reply.callID, error: refusal)
            } else {
                rebuilt.output += replies.output[reply.bytes]
            }
            pendingReplies.rewrote(index, at: start..<rebuilt.output.count, refused: isRefused)
        }
        replies.output = rebuilt.output
    }

    /// Writes what the socket takes now; the rest waits for it to be writable.
    private func writeOutput() {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        switch writeWhatTheSocketTakes() {
        case .failure(let error): return peerClosed(error)
        case .success(false): return watchWrites(true)
        case .success(true): break
        }
        output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
        outputOffset = 0
        watchWrites(false)
        // A closing connection closes once nothing it is to send is left.
        perform(machine.outputWritten(repliesLeft: !replies.output.isEmpty))
        if !isClosed, !isReading, !machine.isClosed {
            isReading = true
            loop.modify(socket.descriptor, token: token, readable: true, writable: isWatchingWrites)
        }
    }

    /// Writes ``output`` until the socket takes no more: whether all of it was written.
    @discardableResult
    private func writeWhatTheSocketTakes() -> Result<Bool, SocketError> {
        while outputOffset < output.count {
            let offset = outputOffset
            let result = output.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch result {
            case .success(0):
                unsentChanged()
                return .success(false)
            case .success(let written): outputOffset += written
            case .failure(let error): return .failure(error)
            }
        }
        unsentChanged()
        return .success(true)
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
        if let stallTimer { loop.cancel(stallTimer) }
        pausedStreams.removeAll()
        loop.deregister(socket.descriptor, token: token)
        socket.close()
        owner.closed(self)
    }

    /// A line about this connection, within the rate limit of lines peers may cause (issue 30:
    /// a device with no account made 36 000-55 000 `call failed` lines a second).
    private func log(_ level: Logger.Level, _ message: String, _ metadata: KeyValuePairs<String, String>) {
        peerLog.log(level, message, from: peerHost, metadata)
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

}

/// What a ``Connection`` tells the server that owns it (both on the loop).
protocol ConnectionOwner: AnyObject {
    /// Where every connection of the loop reads into: one buffer, since one read runs at a time.
    var readBuffer: UnsafeMutableRawBufferPointer { get }
    /// Where TLS connections decrypt into, likewise shared.
    var plaintextBuffer: UnsafeMutableRawBufferPointer { get }
    /// Where the loop's connections decode envelopes and requests, one frame at a time.
    var decodeArena: WireArena { get }
    /// Where they encode replies, one at a time.
    var replyArena: WireArena { get }
    /// Whether `member`'s calls may take more of `turn` (``LoopShares``).
    func hasLoopShare(_ member: UInt64, inTurn turn: UInt64) -> Bool
    /// The loop spent `nanoseconds` of `turn` on a call of `member`'s.
    func chargeLoopShare(_ member: UInt64, nanoseconds: UInt64, inTurn turn: UInt64)
    /// The connection has replies or output to write at the end of this turn.
    func needsFlush(_ connection: Connection)
    /// The connection's handshake is answered: it is no longer pending.
    func handshakeCompleted(_ connection: Connection)
    /// A call on the connection logged in (the first): it is never closed to make room.
    func loggedIn(_ connection: Connection)
    func closed(_ connection: Connection)
}
