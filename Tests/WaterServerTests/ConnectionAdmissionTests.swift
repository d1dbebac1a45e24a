import Testing
import WaterProtocol

@testable import WaterServer

/// Who gets a slot, with no socket (issue 18 item 2).
@Suite("Connection admission")
struct ConnectionAdmissionTests {
    static let limits = ConnectionAdmission.Limits(
        maximumConnections: 10, maximumPerAddress: 4, maximumPendingPerAddress: 2)

    @Test("an address gets its pending handshakes, then its share; a refusal counts against nobody")
    func perAddress() {
        var admission = ConnectionAdmission(limits: Self.limits)
        for _ in 0..<2 {
            #expect(admission.refusal(for: "127.0.0.2") == nil)
            admission.admitted("127.0.0.2")
        }
        // Two silent ones: the third is refused until one finishes its handshake.
        for _ in 0..<100 { #expect(admission.refusal(for: "127.0.0.2")?.message.contains("handshake") == true) }
        #expect(admission.open == 2 && admission.usage(of: "127.0.0.2") == (2, 2), "refusals are not counted")
        admission.handshakeCompleted("127.0.0.2")
        admission.handshakeCompleted("127.0.0.2")
        for _ in 0..<2 {
            admission.admitted("127.0.0.2")
            admission.handshakeCompleted("127.0.0.2")
        }
        #expect(admission.refusal(for: "127.0.0.2")?.code == .resourceExhausted)
        #expect(admission.refusal(for: "127.0.0.2")?.message.contains("at most 4") == true)
        #expect(admission.refusal(for: "127.0.0.1") == nil, "another address is not held back")
        admission.closed("127.0.0.2", wasPending: false)
        #expect(admission.refusal(for: "127.0.0.2") == nil, "a close makes room at once")
    }

    @Test("the global limit, closes that make room, and the shutdown")
    func global() {
        var admission = ConnectionAdmission(limits: Self.limits)
        for host in ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"] {
            for _ in 0..<2 { admission.admitted(host) }
        }
        #expect(admission.open == 10)
        #expect(admission.refusal(for: "10.0.0.9")?.message.contains("too many connections") == true)
        admission.closed("10.0.0.1", wasPending: true)
        #expect(admission.open == 9 && admission.usage(of: "10.0.0.1") == (1, 1))
        #expect(admission.refusal(for: "10.0.0.9") == nil)
        admission.closed("10.0.0.1", wasPending: true)
        admission.closed("10.0.0.1", wasPending: true)
        #expect(admission.open == 8 && admission.usage(of: "10.0.0.1") == (0, 0), "an extra close changes nothing")
        admission.isShuttingDown = true
        #expect(admission.refusal(for: "10.0.0.9")?.code == .unavailable)
    }

    @Test("the per-address share defaults to an eighth of the connections (at least 4), pending ones to half of it")
    func configuredShare() {
        var configuration = ServerConfiguration(dataDirectory: "/nonexistent")
        #expect(
            configuration.admissionLimits
                == .init(maximumConnections: 256, maximumPerAddress: 32, maximumPendingPerAddress: 16))
        configuration.maximumConnections = 16
        #expect(
            configuration.admissionLimits
                == .init(maximumConnections: 16, maximumPerAddress: 4, maximumPendingPerAddress: 2))
        configuration.maximumConnections = 2
        #expect(configuration.admissionLimits.maximumPerAddress == 2)
        configuration.maximumConnectionsPerAddress = 100
        #expect(configuration.admissionLimits.maximumPerAddress == 2, "an explicit share is capped by the whole")
        configuration.maximumPendingHandshakesPerAddress = 8
        #expect(configuration.admissionLimits.maximumPendingPerAddress == 2, "and pending ones by the share")
    }

    @Test("a rate-limited log line says how many events it stands for")
    func logRateLimit() {
        let second: UInt64 = 1_000_000_000
        var limit = LogRateLimit(interval: 10 * second)
        #expect(limit.event(now: 0) == 1)
        for index in 1...999 { #expect(limit.event(now: UInt64(index) * second / 100) == nil) }
        #expect(limit.event(now: 10 * second) == 1000, "the 999 not logged and this one")
        #expect(limit.event(now: 11 * second) == nil)
    }
}
