import WaterCodec
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterTLS
import WaterTransport

/// One admitted client connection: a thin executor of its ``ConnectionStateMachine``, as
/// postgres-nio's `PostgresChannelHandler` is of its own. The machine decides the connection's
/// life (TLS phase, handshake, limits, deadlines, when to close); this class feeds it what the
/// socket, the TLS session and the handlers say, and carries out the actions it returns. It is
/// the event loop's, touched on the loop only (each entry point checks); a handler that answers
/// later does so from anywhere through the ``Responder`` it is handed, which comes back here.
///
/// What it keeps besides the machine is in values of their own, each tested without a socket:
/// ``ReplyQueue`` holds each reply until the group of the log that makes what it shows durable
/// is (``HeldReplies`` says when), ``PendingWrites`` keeps the bytes the socket has not taken,
/// and ``StreamPacing`` keeps streams to the pace the peer reads at.
///
/// Every field is owned by this connection, and written only by its own methods, here and in
/// its extensions (`Connection+Input.swift`: reading; `Connection+Calls.swift`: running calls):
/// nothing else writes one. It tells its ``ConnectionOwner`` what happened through the owner's
/// methods, and ``HeldReplies`` asks it whether its replies wait (``HoldsReplies``).
final class Connection: EventLoopHandler, HoldsReplies, @unchecked Sendable {
    let id: UInt64
    let socket: Socket
    let loop: EventLoop
    let services: ServerServices
    let router: Router
    let log: ConnectionLog
    /// Where this connection asks to be flushed, and says it closed.
    unowned let owner: ConnectionOwner
    /// The TLS session under the frames; nil when serving plaintext on loopback.
    let tls: TLSSession?

    /// Decides; every event goes to it first.
    var machine: ConnectionStateMachine
    /// The replies not handed to the socket yet.
    var replies: ReplyQueue
    /// The groups the writes of the handler running on the loop were queued in.
    let callWrites = CallWrites()
    /// The bytes the socket has not taken yet (ciphertext over TLS).
    var output = PendingWrites()
    /// Which streams wait for the peer to read, and whether it is stuck.
    var pacing = StreamPacing()
    /// The member whose token its last call carried: whose share of the loop its frames take
    /// (``LoopShares``); nil until a call proves who it is.
    var member: UInt64?
    /// What each call's handler asked to run if the call ends without it (cancel, close).
    var cancelHandlers: [UInt64: [@Sendable () -> Void]] = [:]
    private var token: EventLoop.Token = 0
    /// What the loop watches the socket for.
    private(set) var watching = (readable: true, writable: false)
    private(set) var isClosed = false
    /// Whether the frames left in the decoder are to be taken in the next turn already.
    var isResumeScheduled = false
    /// Whether it asked its owner to call ``endTurn(holdingFor:seenFrom:durable:failed:)`` at the end of this
    /// turn: set when it asks (``needsFlush()``), cleared when that call comes.
    private var isQueuedForFlush = false
    /// The timer at the machine's next deadline, and that deadline.
    private var timer: (id: TimerQueue.ID, deadline: UInt64)?
    /// Closes the connection once it has been stalled for the stall timeout.
    private var stallTimer: TimerQueue.ID?

    /// Reading stops while this much waits to be written: a peer that does not read its
    /// replies cannot make the server buffer without bound.
    static let maximumPendingOutput = 4 << 20
    /// Read at most this much per turn, so one busy peer cannot starve the others.
    static let readBudget = 256 * 1024

    /// A connection the owner admitted, from `peerAddress`, with the machine it made for it.
    init(
        id: UInt64, socket: Socket, peer peerAddress: HostPort?, machine: ConnectionStateMachine, loop: EventLoop,
        services: ServerServices, router: Router, owner: ConnectionOwner
    ) throws(TLSError) {
        (self.id, self.socket, self.loop, self.services, self.router, self.owner) = (
            id, socket, loop, services, router, owner
        )
        log = ConnectionLog(peer: peerAddress, peerLog: services.peerLog, logger: services.logger)
        replies = ReplyQueue(
            writer: FrameWriter(maximumPayloadLength: services.configuration.maximumPayloadLength),
            arena: owner.replyArena)
        tls = try services.tls.map { (context) throws(TLSError) in try TLSSession(context, isServer: true) }
        precondition(
            machine.isAwaitingTLS == (tls != nil), "the machine starts with TLS exactly when the socket has it")
        self.machine = machine
    }

    /// The peer's address and port, for the owner's log lines.
    var peer: String { log.peer }

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

    // MARK: Actions

    /// Carries out what the machine decided; `method` names the call of a reply, for the log.
    func perform(_ actions: [ConnectionStateMachine.Action], method: MethodDescriptor? = nil) {
        for action in actions {
            switch action {
            case .send(let envelope):
                if envelope.endOfStream {
                    cancelHandlers[envelope.callID] = nil
                    if envelope.statusCode != .ok {
                        log.callFailed(method?.fullName ?? "?", envelope.statusCode, envelope.status?.message ?? "")
                    }
                }
                guard !isClosed else { continue }
                replies.add(envelope.callID) { $0.reply(envelope) }
                repliesAdded()
            case .dispatch(let call):
                // The machine hands calls over in their envelopes (nextFrame); this one came
                // copied already, so it is run as a handler that answers later would be.
                preconditionFailure("call \(call.callID) was dispatched copied")
            case .cancelCall(let callID):
                cancelHandlers.removeValue(forKey: callID)?.forEach { $0() }
                pacing.callEnded(callID)
            case .handshakeCompleted: owner.handshakeCompleted(self)
            case .loggedIn: owner.loggedIn(self)
            case .close(let reason):
                log.closing(reason)
                watch(readable: false)
                needsFlush()
            case .closeNow(let reason):
                log.closing(reason)
                writeWhatTheSocketTakes()
                close()
            }
        }
    }

    /// Replies were added to ``replies``: they go at the end of the turn (its owner flushes
    /// it), and count against the read limit and the streams' watermarks from now.
    func repliesAdded() {
        needsFlush()
        if unsentBytes > Self.maximumPendingOutput { watch(readable: false) }
        unsentChanged()
    }

    /// What waits to be taken by the socket: the replies not handed to it yet, and the bytes
    /// for it (ciphertext over TLS).
    var unsentBytes: Int { output.count + replies.count }

    /// Tells the pacing the new count: resumes the paused streams when the connection is
    /// writable again, and keeps the stall timer armed while it is stuck.
    private func unsentChanged() {
        for stream in pacing.unsentChanged(to: unsentBytes, now: EventLoop.now())
        where machine.isInFlight(stream.callID) {
            stream.resume()
        }
        guard stallTimer == nil, let deadline = pacing.stallDeadline else { return }
        stallTimer = loop.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            self.stallTimer = nil
            guard !self.isClosed else { return }
            guard self.pacing.isStalled(now: EventLoop.now()) else { return self.unsentChanged() }
            // It has read nothing for that long: a status would wait behind what it does not read.
            self.log.stalled(unsent: self.unsentBytes, for: self.pacing.watermarks.limits.stallTimeout)
            self.perform(self.machine.peerClosed())
            self.close()
        }
    }

    // MARK: Output

    /// Asks the owner, once a turn, to end this turn of its replies (``endTurn(holdingFor:seenFrom:durable:failed:)``).
    func needsFlush() {
        guard !isQueuedForFlush else { return }
        isQueuedForFlush = true
        owner.needsFlush(self)
    }

    /// The turn is over: its replies (which saw writes from `seenFrom` on) wait for the group
    /// they saw, or `group`; those whose group is `durable` go at once, refused where a group in
    /// `failed` lost what they showed (a writer may take and fail a group mid-turn).
    func endTurn(holdingFor group: UInt64, seenFrom: UInt64, durable: UInt64, failed: [GroupOutcome]) {
        loop.preconditionInLoop()
        isQueuedForFlush = false
        guard !isClosed else { return }
        replies.endTurn(holdingFor: group, seenFrom: seenFrom)
        release(upTo: durable, failed: failed)
    }

    /// Whether replies wait for a group.
    var isHoldingReplies: Bool { replies.isHolding && !isClosed }

    /// Whether a reply waits that `outcome` refuses.
    func isHolding(refusedBy outcome: GroupOutcome) -> Bool { replies.isHolding(refusedBy: outcome) }

    /// Groups up to `durable` are done: the replies that waited for them go to the socket, in
    /// order, as refusals where they showed writes a group in `failed` lost.
    func release(upTo durable: UInt64, failed: [GroupOutcome]) {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        // Nothing can be sent before TLS is done, nor after it failed.
        guard machine.canSendReplies, let end = replies.release(upTo: durable, failed: failed) else {
            return writeOutput()
        }
        if let tls {
            do throws(TLSError) {
                try tls.write(replies.bytes(upTo: end))
            } catch {
                log.connectionError(error.description, level: .error)
            }
            output.append(tls.takeOutput())
            replies.sent(end)
        } else {
            replies.move(end, to: &output)
        }
        writeOutput()
    }

    /// Writes what the socket takes now; the rest waits for it to be writable.
    func writeOutput() {
        loop.preconditionInLoop()
        guard !isClosed else { return }
        switch writeWhatTheSocketTakes() {
        case .failure(let error): return peerClosed(error)
        case .success(false): return watch(writable: true)
        case .success(true): watch(writable: false)
        }
        // A closing connection closes once nothing it is to send is left.
        perform(machine.outputWritten(repliesLeft: !replies.isEmpty))
        if !isClosed, !machine.isClosed { watch(readable: true) }
    }

    /// Writes ``output`` until the socket takes no more: whether all of it was written.
    @discardableResult
    private func writeWhatTheSocketTakes() -> Result<Bool, SocketError> {
        let result = Result { () throws(SocketError) in
            try output.write { (bytes) throws(SocketError) in try socket.write(bytes) }
        }
        if case .success = result { unsentChanged() }
        return result
    }

    /// Has the loop watch the socket for what is given, and as before for the rest.
    private func watch(readable: Bool? = nil, writable: Bool? = nil) {
        let wanted = (readable: readable ?? watching.readable, writable: writable ?? watching.writable)
        guard wanted != watching else { return }
        watching = wanted
        loop.modify(socket.descriptor, token: token, readable: wanted.readable, writable: wanted.writable)
    }

    /// Closes the socket now: what handlers registered for a cancel runs, the timers and paused
    /// streams go, and the owner forgets it.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        for handlers in cancelHandlers.values { handlers.forEach { $0() } }
        cancelHandlers.removeAll()
        if let timer { loop.cancel(timer.id) }
        if let stallTimer { loop.cancel(stallTimer) }
        pacing.closed()
        loop.deregister(socket.descriptor, token: token)
        socket.close()
        owner.closed(self)
    }

    // MARK: Deadlines

    /// Keeps one timer at the state machine's next deadline. Activity that only moves the
    /// deadline later leaves the timer where it is: it fires, finds nothing due, and re-arms,
    /// so an idle connection costs one wake-up per idle timeout and a busy one none.
    func armTimer() {
        guard !isClosed, let deadline = machine.nextDeadline else { return }
        if let timer {
            guard deadline < timer.deadline else { return }
            loop.cancel(timer.id)
        }
        let id = loop.schedule(at: deadline) { [self] in
            timer = nil
            perform(machine.deadlinePassed(now: EventLoop.now()))
            armTimer()
        }
        timer = (id, deadline)
    }
}
