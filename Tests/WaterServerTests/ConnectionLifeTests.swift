import Testing
import WaterCodec
import WaterProtocol

@testable import WaterServer

/// The parts of a connection's life around its frames, event by event with no socket (issue 18
/// item 10): refusal at accept, the TLS phase and its deadline, the close once what was said is
/// written, and the frame budget of a loop turn.
@Suite("Connection state machine: refusal, TLS, close after flush, budget")
struct ConnectionLifeTests {
    typealias Machine = ConnectionStateMachine
    static let second = ConnectionStateMachineTests.second
    static let tooMany = WaterError(.resourceExhausted, "too many connections from 127.0.0.2")

    static func machine(tls: Bool) -> Machine {
        Machine(limits: ConnectionStateMachineTests.limits, now: 0, tls: tls) { ConnectionStateMachineTests.hello }
    }

    static func frame(_ envelope: WaterV1.RequestEnvelope) -> [UInt8] {
        FrameEncoder.frame(flags: [], wirePayload: envelope.serializedBytes())
    }

    static let handshake = frame(
        WaterV1.RequestEnvelope(callID: 1, request: WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version)))

    @Test("a refused plaintext connection gets its status and is closed at once, never read")
    func refusedPlaintext() {
        var machine = Self.machine(tls: false)
        let status = WaterV1.ResponseEnvelope(callID: WireProtocol.connectionCallID, error: Self.tooMany)
        #expect(machine.refused(Self.tooMany) == [.send(status), .closeNow(reason: Self.tooMany)])
        #expect(machine.isClosed && machine.nextDeadline == nil)
        #expect(machine.bytesReceived(Self.handshake, now: 0).isEmpty, "nothing it sends is read")
    }

    @Test("a refused TLS connection is closed at once: no TLS handshake is waited for, nothing is said")
    func refusedTLS() {
        var machine = Self.machine(tls: true)
        #expect(machine.refused(Self.tooMany) == [.closeNow(reason: Self.tooMany)])
        #expect(machine.isClosed && !machine.canSendReplies)
        #expect(machine.deadlinePassed(now: 100 * Self.second).isEmpty, "no deadline is left to fire")
    }

    @Test("a TLS handshake not done by the handshake deadline is closed, with no status (none can be said)")
    func tlsHandshakeDeadline() {
        var machine = Self.machine(tls: true)
        #expect(machine.isAwaitingTLS && machine.isPending && !machine.canSendReplies)
        #expect(machine.nextDeadline == 10 * Self.second, "the handshake deadline, not the idle timeout")
        // Plaintext before TLS is done is never taken as frames.
        #expect(machine.bytesReceived(Self.handshake, now: Self.second).isEmpty)
        #expect(machine.deadlinePassed(now: 10 * Self.second - 1).isEmpty)
        let late = machine.deadlinePassed(now: 10 * Self.second)
        #expect(late.count == 1)
        guard case .closeNow(let reason?) = late.first else {
            Issue.record("expected closeNow, got \(late)")
            return
        }
        #expect(reason.code == .deadlineExceeded && reason.message.contains("TLS handshake"))
        #expect(machine.isClosed)
    }

    @Test("once TLS is done the protocol's handshake follows, within the same deadline from the start")
    func afterTLS() {
        var machine = Self.machine(tls: true)
        machine.tlsHandshakeCompleted(now: 4 * Self.second)
        #expect(!machine.isAwaitingTLS && machine.isPending && machine.canSendReplies)
        #expect(machine.nextDeadline == 10 * Self.second, "TLS does not restart the clock")
        let late = machine.deadlinePassed(now: 10 * Self.second)
        #expect(late.first?.statusCode == .deadlineExceeded && late.last == .close(reason: late.closeReason))
        var quick = Self.machine(tls: true)
        quick.tlsHandshakeCompleted(now: Self.second)
        let answered = quick.bytesReceived(Self.handshake, now: 2 * Self.second)
        #expect(answered.last == .handshakeCompleted && !quick.isPending)
    }

    @Test("TLS failing ends the calls in flight; only the alert is flushed, the replies waiting are dropped")
    func tlsFailure() {
        var machine = Self.machine(tls: true)
        machine.tlsHandshakeCompleted(now: 0)
        _ = machine.bytesReceived(
            Self.handshake + Self.frame(WaterV1.RequestEnvelope(callID: 2, request: WaterV1.GetTodayRequest())), now: 0)
        #expect(machine.callsInFlight == 1)
        #expect(machine.tlsFailed() == [.cancelCall(2), .close(reason: nil)])
        #expect(machine.isClosed && !machine.canSendReplies)
        #expect(machine.outputWritten(repliesLeft: true) == [.closeNow(reason: nil)])
        #expect(machine.tlsFailed().isEmpty && machine.outputWritten(repliesLeft: false).isEmpty)
    }

    @Test("after a protocol error the connection closes once its status and every reply before it are written")
    func closeAfterFlush() {
        var machine = Self.machine(tls: false)
        let failed = machine.bytesReceived([0x80, 0, 0, 0, 0], now: 0)
        #expect(failed.last == .close(reason: failed.closeReason) && failed.closeReason != nil)
        #expect(machine.isClosed && machine.canSendReplies, "what it said still goes")
        #expect(machine.outputWritten(repliesLeft: true).isEmpty, "replies still wait for their group")
        #expect(machine.outputWritten(repliesLeft: false) == [.closeNow(reason: nil)])
        #expect(machine.outputWritten(repliesLeft: false).isEmpty && !machine.canSendReplies)
        // An open connection that wrote everything stays open.
        var open = Self.machine(tls: false)
        _ = open.bytesReceived(Self.handshake, now: 0)
        #expect(open.outputWritten(repliesLeft: false).isEmpty && !open.isClosed)
    }

    @Test("a burst over the turn's frame budget: 64 frames now, the rest in the next turns")
    func burstOverBudget() {
        var machine = Self.machine(tls: false)
        machine.turnStarted(1)
        let cancels = (0..<100).flatMap { Self.frame(WaterV1.RequestEnvelope(callID: 1000 + UInt64($0), cancel: true)) }
        (Self.handshake + cancels).withUnsafeBytes { machine.received($0, now: 0) }
        let arena = WireArena(initialBlockSize: 1024)
        func pull() -> (taken: Int, ending: Machine.FrameOutcome) {
            var taken = 0
            while true {
                arena.reset()
                let outcome = machine.nextFrame(arena: arena, now: 0)
                switch outcome {
                case .needMoreBytes, .budgetSpent: return (taken, outcome)
                case .call, .actions: taken += 1
                }
            }
        }
        let first = pull()
        #expect(first.taken == 64 && first.ending.isBudgetSpent && !machine.hasFrameBudget)
        machine.turnStarted(1)
        #expect(pull().taken == 0, "the same turn gets no more")
        machine.turnStarted(2)
        let second = pull()
        #expect(second.taken == 37 && !second.ending.isBudgetSpent, "the handshake and 100 frames in all")
        #expect(!machine.isClosed)
    }

    @Test("draining a connection still in its TLS handshake closes it at once")
    func drainDuringTLS() {
        var machine = Self.machine(tls: true)
        #expect(machine.drain() == [.closeNow(reason: nil)])
        #expect(machine.isClosed)
    }
}

extension [ConnectionStateMachine.Action] {
    /// The reason of the close among these actions.
    var closeReason: WaterError? {
        for action in self { if case .close(let reason) = action { return reason } }
        return nil
    }
}

extension ConnectionStateMachine.Action {
    /// The status of a send, else nil.
    var statusCode: WaterV1.StatusCode? {
        if case .send(let envelope) = self { envelope.status?.code } else { nil }
    }
}

extension ConnectionStateMachine.FrameOutcome {
    var isBudgetSpent: Bool { if case .budgetSpent = self { true } else { false } }
}
