import Testing
import WaterProtocol

@testable import WaterServer

/// Frames a client sends.
private enum Frames {
    static func frame(_ envelope: WaterV1.RequestEnvelope) -> [UInt8] {
        FrameEncoder.frame(flags: [], wirePayload: envelope.serializedBytes())
    }

    static func handshake(callID: UInt64 = 1, version: UInt32 = WireProtocol.version) -> [UInt8] {
        frame(WaterV1.RequestEnvelope(callID: callID, request: WaterV1.HandshakeRequest(protocolVersion: version)))
    }

    static func call(_ callID: UInt64, _ request: some RPCRequest = WaterV1.GetTodayRequest()) -> [UInt8] {
        frame(WaterV1.RequestEnvelope(callID: callID, request: request))
    }
}

/// The connection's protocol, event by event, with no socket (issue 9).
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    static let second: UInt64 = 1_000_000_000
    static let limits = Machine.Limits(
        maximumPayloadLength: 1024, maximumCallsInFlight: 2, frameDeadline: 10 * second,
        idleTimeout: 300 * second, handshakeDeadline: 10 * second)
    static let hello = WaterV1.HandshakeResponse(protocolVersion: WireProtocol.version, serverName: "test")

    static func machine() -> Machine {
        Machine(limits: limits, now: 0) { hello }
    }

    /// A machine past its handshake.
    static func open() -> Machine {
        var machine = Self.machine()
        _ = machine.bytesReceived(Frames.handshake()[...], now: 0)
        return machine
    }

    static func status(_ actions: [Machine.Action], at index: Int = 0) -> WaterV1.StatusCode? {
        guard index < actions.count, case .send(let envelope) = actions[index] else { return nil }
        return envelope.status?.code
    }

    static func dispatched(_ actions: [Machine.Action]) -> [UInt64] {
        actions.compactMap { if case .dispatch(let call) = $0 { call.callID } else { nil } }
    }

    static func closes(_ actions: [Machine.Action]) -> Bool {
        actions.contains { if case .close = $0 { true } else { false } }
    }

    @Test("the handshake, fed one byte at a time, all at once, or with a call behind it")
    func handshake() {
        let reply = Machine.Action.send(WaterV1.ResponseEnvelope(callID: 1, response: Self.hello))
        var dripped = Self.machine()
        var actions: [Machine.Action] = []
        for byte in Frames.handshake() { actions += dripped.bytesReceived([byte][...], now: 0) }
        #expect(actions == [reply, .handshakeCompleted])
        #expect(!dripped.isPending)
        var whole = Self.machine()
        let both = whole.bytesReceived((Frames.handshake() + Frames.call(2))[...], now: 0)
        #expect(both.first == reply && Self.dispatched(both) == [2])
    }

    @Test(
        "protocol errors get a connection-level status, then close",
        arguments: [
            ("a call before the handshake", Frames.call(1), WaterV1.StatusCode.failedPrecondition),
            ("a protocol version from the future", Frames.handshake(version: 99), .failedPrecondition),
            (
                "an envelope that does not decode", FrameEncoder.frame(flags: [], wirePayload: [0xFF, 0xFF, 0xFF]),
                .invalidArgument
            ),
            ("a frame over the limit", [0x00, 0x00, 0x01, 0x00, 0x00], .resourceExhausted),
            ("reserved flag bits", [0x80, 0x00, 0x00, 0x00, 0x00], .invalidArgument),
            (
                "call id 0", Frames.frame(WaterV1.RequestEnvelope(callID: 0, request: WaterV1.HandshakeRequest())),
                .invalidArgument
            ),
        ])
    func protocolErrors(_ what: String, _ bytes: [UInt8], _ code: WaterV1.StatusCode) {
        var machine = Self.machine()
        let actions = machine.bytesReceived(bytes[...], now: 0)
        #expect(Self.status(actions) == code, "\(what)")
        #expect(Self.closes(actions) && machine.isClosed, "\(what)")
        #expect(machine.bytesReceived(Frames.handshake()[...], now: 1).isEmpty, "nothing after the close")
    }

    @Test("an unknown method, a second handshake and a repeated call id fail only that call")
    func callErrors() {
        var machine = Self.open()
        let unknown = machine.bytesReceived(
            Frames.frame(WaterV1.RequestEnvelope(callID: 5, method: "water.v1.Tracker/Teleport"))[...], now: 0)
        #expect(Self.status(unknown) == .unimplemented && !machine.isClosed)
        #expect(Self.status(machine.bytesReceived(Frames.handshake(callID: 6)[...], now: 0)) == .failedPrecondition)
        #expect(Self.dispatched(machine.bytesReceived(Frames.call(7)[...], now: 0)) == [7])
        let repeated = machine.bytesReceived(Frames.call(7)[...], now: 0)
        #expect(Self.status(repeated) == .invalidArgument && !machine.isClosed)
    }

    @Test("calls in flight are limited; a reply makes room")
    func callsInFlight() {
        var machine = Self.open()
        #expect(Self.dispatched(machine.bytesReceived((Frames.call(2) + Frames.call(3))[...], now: 0)) == [2, 3])
        #expect(Self.status(machine.bytesReceived(Frames.call(4)[...], now: 0)) == .resourceExhausted)
        let reply = WaterV1.ResponseEnvelope(callID: 2, response: WaterV1.GetTodayResponse())
        #expect(machine.replyReady(reply, now: 1) == [.send(reply)])
        #expect(Self.dispatched(machine.bytesReceived(Frames.call(4)[...], now: 1)) == [4])
        #expect(machine.replyReady(reply, now: 1).isEmpty, "a second final reply to a finished call is dropped")
    }

    @Test("a stream sends many replies and stays in flight until its last; cancelling ends it")
    func streams() {
        var machine = Self.open()
        #expect(Self.dispatched(machine.bytesReceived(Frames.call(2, WaterV1.WatchBoardRequest())[...], now: 0)) == [2])
        let message = WaterV1.ResponseEnvelope(callID: 2, response: WaterV1.WatchBoardResponse(), endOfStream: false)
        #expect(machine.replyReady(message, now: 0) == [.send(message)])
        #expect(machine.replyReady(message, now: 0) == [.send(message)])
        #expect(machine.callsInFlight == 1)
        let cancel = machine.bytesReceived(Frames.frame(WaterV1.RequestEnvelope(callID: 2, cancel: true))[...], now: 0)
        #expect(cancel.first == .cancelCall(2) && Self.status(cancel, at: 1) == .cancelled)
        #expect(machine.replyReady(message, now: 0).isEmpty, "nothing more after the cancel")
        #expect(machine.callsInFlight == 0)
    }

    @Test("a frame that stops arriving is closed at the frame deadline, and only then")
    func frameDeadline() {
        var machine = Self.open()
        _ = machine.bytesReceived(Frames.call(2).prefix(4), now: 5 * Self.second)
        #expect(machine.nextDeadline == 15 * Self.second)
        #expect(machine.deadlinePassed(now: 15 * Self.second - 1).isEmpty)
        let late = machine.deadlinePassed(now: 15 * Self.second)
        #expect(Self.status(late) == .deadlineExceeded && Self.closes(late))
    }

    @Test("a connection that sends no handshake, or only part of one, is closed at the handshake deadline")
    func handshakeDeadline() {
        var silent = Self.machine()
        #expect(silent.nextDeadline == 10 * Self.second, "the handshake deadline, not the idle timeout")
        #expect(silent.deadlinePassed(now: 10 * Self.second - 1).isEmpty)
        let late = silent.deadlinePassed(now: 10 * Self.second)
        #expect(Self.status(late) == .deadlineExceeded && Self.closes(late))
        // Trickling the handshake's bytes does not buy time: the deadline runs from the start.
        var trickling = Self.machine()
        for (index, byte) in Frames.handshake().dropLast().enumerated() {
            _ = trickling.bytesReceived([byte], now: UInt64(index) * Self.second / 4)
        }
        #expect(trickling.nextDeadline == 10 * Self.second)
        #expect(Self.closes(trickling.deadlinePassed(now: 10 * Self.second)))
        // Once the handshake is done, only the idle timeout is left.
        #expect(Self.open().nextDeadline == 300 * Self.second)
    }

    @Test("a connection idle for the idle timeout is closed; a call in flight keeps it open")
    func idleTimeout() {
        var machine = Self.open()
        #expect(machine.nextDeadline == 300 * Self.second)
        _ = machine.bytesReceived(Frames.call(2)[...], now: 10 * Self.second)
        #expect(machine.nextDeadline == nil, "no idle timeout while a call is in flight")
        #expect(machine.deadlinePassed(now: 1000 * Self.second).isEmpty)
        _ = machine.replyReady(
            WaterV1.ResponseEnvelope(callID: 2, response: WaterV1.GetTodayResponse()), now: 20 * Self.second)
        #expect(machine.nextDeadline == 320 * Self.second)
        let idle = machine.deadlinePassed(now: 320 * Self.second)
        #expect(Self.status(idle) == .unavailable && Self.closes(idle))
    }

    @Test("draining ends streams now, refuses new calls, lets unary calls finish, then closes")
    func drain() {
        var machine = Self.open()
        _ = machine.bytesReceived((Frames.call(2) + Frames.call(3, WaterV1.WatchBoardRequest()))[...], now: 0)
        let drained = machine.drain()
        #expect(drained.first == .cancelCall(3) && Self.status(drained, at: 1) == .unavailable && !Self.closes(drained))
        #expect(Self.status(machine.bytesReceived(Frames.call(4)[...], now: 0)) == .unavailable)
        let reply = WaterV1.ResponseEnvelope(callID: 2, response: WaterV1.GetTodayResponse())
        #expect(machine.replyReady(reply, now: 0) == [.send(reply), .close(reason: nil)])
        #expect(machine.isClosed)
    }

    @Test("the server ending a call: its cancel runs and the peer is told why, once; a draining connection then closes")
    func callEnded() {
        var machine = Self.open()
        _ = machine.bytesReceived(Frames.call(3, WaterV1.WatchBoardRequest())[...], now: 0)
        let ended = machine.callEnded(3, SessionStreams.sessionEnded)
        #expect(
            ended == [.cancelCall(3), .send(WaterV1.ResponseEnvelope(callID: 3, error: SessionStreams.sessionEnded))])
        #expect(!machine.isInFlight(3) && machine.callEnded(3, SessionStreams.sessionEnded).isEmpty)
        // A stream's later message for it is dropped, and a call never made is not ended.
        #expect(
            machine.replyReady(WaterV1.ResponseEnvelope(callID: 3, error: SessionStreams.sessionEnded), now: 0).isEmpty)
        #expect(machine.callEnded(9, SessionStreams.sessionEnded).isEmpty)

        var draining = Self.open()
        _ = draining.bytesReceived(Frames.call(2)[...], now: 0)
        _ = draining.drain()
        let last = draining.callEnded(2, SessionStreams.sessionEnded)
        #expect(last.first == .cancelCall(2) && Self.status(last, at: 1) == .unauthenticated && Self.closes(last))
    }

    @Test("the peer closing cancels every call in flight")
    func endings() {
        var machine = Self.open()
        _ = machine.bytesReceived((Frames.call(2) + Frames.call(3))[...], now: 0)
        #expect(machine.peerClosed() == [.cancelCall(2), .cancelCall(3)])
        #expect(machine.isClosed && machine.peerClosed().isEmpty)
    }
}
