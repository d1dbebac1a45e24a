import Testing

@testable import WaterServer

/// Which deadline of a connection is next and which has passed, phase by phase, with no clock.
@Suite("Connection deadlines")
struct ConnectionDeadlinesTests {
    static let second = ConnectionStateMachineTests.second
    /// Handshake 10 s, frame 10 s, idle 300 s.
    static let limits = ConnectionStateMachineTests.limits

    @Test("before TLS is done only the handshake deadline counts, whatever else is going on")
    func tlsPhase() throws {
        var deadlines = ConnectionDeadlines(limits: Self.limits, now: 0)
        deadlines.frameIncomplete(at: 1 * Self.second)
        #expect(deadlines.next(in: .tlsHandshake, idle: true) == 10 * Self.second)
        #expect(deadlines.passed(at: 10 * Self.second - 1, in: .tlsHandshake, idle: true) == nil)
        let passed = try #require(deadlines.passed(at: 10 * Self.second, in: .tlsHandshake, idle: true))
        #expect(passed.code == .deadlineExceeded && passed.message.contains("TLS handshake"))
    }

    @Test("awaiting the handshake: its deadline runs from the start, however active the peer is")
    func handshakePhase() throws {
        var deadlines = ConnectionDeadlines(limits: Self.limits, now: 0)
        deadlines.activity(at: 5 * Self.second)
        #expect(deadlines.next(in: .handshake, idle: true) == 10 * Self.second)
        let passed = try #require(deadlines.passed(at: 10 * Self.second, in: .handshake, idle: true))
        #expect(passed.message.contains("handshake did not arrive"))
    }

    @Test(
        "past the handshake: a frame's deadline from its first byte, else the idle timeout while nothing is in flight")
    func callsPhase() throws {
        var deadlines = ConnectionDeadlines(limits: Self.limits, now: 0)
        deadlines.activity(at: 20 * Self.second)
        #expect(deadlines.next(in: .calls, idle: true) == 320 * Self.second)
        #expect(deadlines.next(in: .calls, idle: false) == nil, "a call in flight is not idle")
        deadlines.frameIncomplete(at: 30 * Self.second)
        deadlines.frameIncomplete(at: 35 * Self.second)
        #expect(deadlines.next(in: .calls, idle: false) == 40 * Self.second, "from the frame's first byte")
        let late = try #require(deadlines.passed(at: 40 * Self.second, in: .calls, idle: false))
        #expect(late.message.contains("frame took longer"))
        deadlines.frameEnded()
        #expect(deadlines.passed(at: 319 * Self.second, in: .calls, idle: true) == nil)
        let idle = try #require(deadlines.passed(at: 320 * Self.second, in: .calls, idle: true))
        #expect(idle.code == .unavailable)
        #expect(deadlines.passed(at: 1000 * Self.second, in: .calls, idle: false) == nil)
    }
}
