import WaterProtocol
import WaterTransport

/// Running calls: the handler of each call the machine hands over, and what handlers say back,
/// from any thread, through their ``Responder``.
extension Connection {
    /// Runs a call where its envelope was decoded: checks who calls, then runs its handler,
    /// on the loop (the reply is written at once into this turn's replies) or later.
    func dispatch(_ envelope: RequestEnvelopeView, _ method: MethodDescriptor) {
        let callID = envelope.callID
        let dispatched = EventLoop.now()
        guard let handler = router.handler(for: method) else {
            return answer(
                callID, method, WaterError(.unimplemented, "\(method.fullName) is not available on this server yet"),
                since: dispatched)
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
                return answer(callID, method, error, since: dispatched)
            }
            if handler.access == .admin, caller?.account.role != .admin {
                return answer(
                    callID, method,
                    WaterError(.permissionDenied, "only an admin may do that; ask an admin of the household"),
                    since: dispatched)
            }
        }
        var context = CallContext(caller: caller, now: now, peer: log.peer, peerHost: log.peerHost)
        switch handler.kind {
        case .onLoop(let handle):
            let began = EventLoop.now()
            let call = LoopCall(envelope: envelope, arena: owner.decodeArena, limits: machine.decodeLimits)
            context.writes = callWrites
            // The newest group queued once it has answered holds every write it saw; it is
            // refused only if the group of its own writes fails.
            let committer = services.store.committer
            let refusal = replies.add(
                callID, seen: { committer.lastQueuedGroup }, own: { callWrites.take() }
            ) { handle(call, context, &$0) }
            if let member {
                owner.chargeLoopShare(member, nanoseconds: EventLoop.now() - began, inTurn: loop.turnNumber)
            }
            answered(callID, method, refusal: refusal, since: dispatched)
        case .later(let handle):
            let responder = Responder(
                callID: callID, method: method.fullName,
                deliver: { [self] envelope, failure in
                    deliver(envelope, failure: failure, method: method, since: dispatched)
                },
                deliverFramed: { [self] bytes, next in deliverFramed(callID, bytes, next: next) },
                writer: replies.writer,
                onCancel: { [self] cancel in onCancel(callID, cancel) },
                deliverFramedReply: { [self] bytes in deliverFramedReply(callID, method, bytes, since: dispatched) },
                ending: { [self] error in endCall(callID, method, error, since: dispatched) })
            handle(IncomingCall(copying: envelope, method: method, limits: machine.decodeLimits), context, responder)
        }
    }

    /// Ends a call before it reaches a handler.
    private func answer(_ callID: UInt64, _ method: MethodDescriptor, _ error: WaterError, since dispatched: UInt64) {
        answered(callID, method, refusal: replies.add(callID) { $0.reply(callID, error: error) }, since: dispatched)
    }

    /// A call answered at once, its reply added to ``replies`` (a `refusal`, to be logged, when
    /// it is one): it is no longer in flight. `dispatched`: ``EventLoop/now()`` at its dispatch.
    private func answered(_ callID: UInt64, _ method: MethodDescriptor, refusal: WaterError?, since dispatched: UInt64)
    {
        services.calls.answered(method, refusal?.code ?? .ok, after: EventLoop.now() - dispatched)
        if let refusal {
            log.serverFailure(method.fullName, refusal)
            log.callFailed(method.fullName, refusal.code, refusal.message)
        }
        if machine.callAnswered(callID, now: EventLoop.now()) { perform([.close(reason: nil)]) }
        repliesAdded()
    }

    // MARK: From handlers that answer later, on any thread

    /// A reply of a handler that answers later.
    private func deliver(
        _ envelope: ResponseEnvelope, failure: WaterError?, method: MethodDescriptor, since dispatched: UInt64
    ) {
        guard loop.inLoop else {
            return loop.execute { self.deliver(envelope, failure: failure, method: method, since: dispatched) }
        }
        if let failure { log.serverFailure(method.fullName, failure) }
        if envelope.endOfStream, machine.isInFlight(envelope.callID) {
            services.calls.answered(method, envelope.statusCode, after: EventLoop.now() - dispatched)
        }
        // A Login that worked makes the connection a member's.
        if method == WaterV1.LoginRequest.method, envelope.endOfStream, envelope.statusCode == .ok {
            perform(machine.loggedIn())
        }
        perform(machine.replyReady(envelope, now: EventLoop.now()), method: method)
        armTimer()
    }

    /// A stream's next message, framed where it was made: queued as any reply that waits for
    /// no commit, then `next` runs now if the connection is writable, else once it is again
    /// (``StreamPacing``). A call that has ended drops it, and its stream stops there.
    private func deliverFramed(_ callID: UInt64, _ bytes: [UInt8], next: @escaping @Sendable () -> Void) {
        guard loop.inLoop else { return loop.execute { self.deliverFramed(callID, bytes, next: next) } }
        guard !isClosed, machine.isInFlight(callID) else { return }
        replies.add(callID) { $0.reply(framed: bytes) }
        repliesAdded()
        switch pacing.messageQueued(callID, next: next) {
        case .produce: next()
        case .paused(let isFirst): if isFirst { log.streamsPaused(unsent: unsentBytes) }
        }
    }

    /// A unary call's one reply, framed where it was made (a read off the loop), handed over
    /// once every write it could have seen is durable (``ReadPool``): it ends the call as a
    /// reply made on the loop would, and waits for no group. Dropped when the call has ended.
    private func deliverFramedReply(
        _ callID: UInt64, _ method: MethodDescriptor, _ bytes: [UInt8], since dispatched: UInt64
    ) {
        guard loop.inLoop else {
            return loop.execute { self.deliverFramedReply(callID, method, bytes, since: dispatched) }
        }
        guard !isClosed, machine.isInFlight(callID) else { return }
        cancelHandlers[callID] = nil
        replies.addDurable(callID, framed: bytes)
        answered(callID, method, refusal: nil, since: dispatched)
        armTimer()
    }

    /// The server ends a call its handler has not finished (``Responder/end(_:)``).
    private func endCall(_ callID: UInt64, _ method: MethodDescriptor, _ error: WaterError, since dispatched: UInt64) {
        guard loop.inLoop else { return loop.execute { self.endCall(callID, method, error, since: dispatched) } }
        guard !isClosed else { return }
        if machine.isInFlight(callID) {
            services.calls.answered(method, error.code, after: EventLoop.now() - dispatched)
        }
        perform(machine.callEnded(callID, error), method: method)
        armTimer()
    }

    /// What the handler of `callID` runs if the call ends without it (cancelled, closed).
    private func onCancel(_ callID: UInt64, _ cancel: @escaping @Sendable () -> Void) {
        guard loop.inLoop else { return loop.execute { self.onCancel(callID, cancel) } }
        cancelHandlers[callID, default: []].append(cancel)
    }
}
