import WaterProtocol
import WaterTLS
import WaterTransport

/// Reading: bytes from the socket, through TLS when there is TLS, into the machine, and the
/// frames it hands back, up to the budgets of a turn.
extension Connection {
    /// The socket is readable, writable, or failed (a hang-up is found by reading).
    func ready(_ event: EventLoop.Readiness) {
        machine.turnStarted(loop.turnNumber)
        // Even while reading is paused.
        if event.readable || event.failed { readAvailable(evenIfPaused: event.failed) }
        if event.writable { writeOutput() }
    }

    /// Reads what the socket has, up to the turn's read budget and while frames may be taken.
    private func readAvailable(evenIfPaused: Bool = false) {
        var total = 0
        let buffer = owner.readBuffer
        while !isClosed, watching.readable || evenIfPaused, total < Self.readBudget, mayTakeFrames {
            switch Result(catching: { () throws(SocketError) in try socket.read(into: buffer) }) {
            case .success(nil): return armTimer()
            case .success(0): return peerClosed(nil)
            case .success(let count?):
                total += count
                let received = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if let tls {
                    guard decrypt(received, with: tls) else { return }
                } else {
                    self.received(received)
                }
                if count < buffer.count { return armTimer() }  // drained: the next read would say EAGAIN
            case .failure(let error): return peerClosed(error)
            }
        }
        armTimer()
    }

    /// Plaintext from the peer: every frame in it, up to this turn's budget. The rest waits in
    /// the machine's decoder for the next turn (``resumeNextTurn()``).
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

    /// Takes the frames the machine has, one at a time, each call run where it was decoded.
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

    /// Takes the frames left over from a turn that spent its budget in the next turn, whether or
    /// not more bytes arrive (the budget is the machine's, per loop turn).
    private func resumeNextTurn() {
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
                let isDone = try tls.handshake() == .done
                if isDone { machine.tlsHandshakeCompleted(now: EventLoop.now()) }
                sendCiphertext(tls.takeOutput())
                guard isDone else { return true }
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
            log.connectionError(error.description)
            sendCiphertext(tls.takeOutput())  // the alert that says why
            perform(machine.tlsFailed())
            return false
        }
    }

    /// Bytes of the TLS layer itself (handshake, alerts, tickets): not replies, so they wait
    /// for no commit.
    private func sendCiphertext(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.append(bytes)
        needsFlush()
    }

    func peerClosed(_ error: SocketError?) {
        if machine.isInsideFrame {
            log.connectionError("closed inside a frame", cause: error?.description ?? "end of stream")
        } else if let error {
            log.connectionError(error.description)
        }
        perform(machine.peerClosed())
        close()
    }
}
