import Synchronization
import Testing
import WaterLog

@testable import WaterServer

/// How many lines peers may put in the log, with no clock but the one handed in (issue 30 item 4).
@Suite("Log lines peers cause")
struct PeerLogBudgetTests {
    static let second: UInt64 = 1_000_000_000
    static let limits = PeerLogBudget.Limits(window: 10 * second, perAddress: 3, total: 5, addressesCounted: 4)

    @Test("an address gets its share of a window, everyone the total; every line left out is counted once")
    func shares() {
        var budget = PeerLogBudget(limits: Self.limits)
        var logged = 0
        var reported = PeerLogBudget.Suppressed()
        func line(_ host: String, at now: UInt64) {
            switch budget.line(from: host, now: now) {
            case .suppress: break
            case .log(let suppressed):
                logged += 1
                if let suppressed {
                    reported.lines += suppressed.lines
                    reported.addresses += suppressed.addresses
                }
            }
        }
        // A flood from one address: its 3 lines, the rest counted.
        for _ in 0..<1000 { line("10.0.0.66", at: 0) }
        #expect(logged == 3)
        // Another address in the same window: its lines go, the first after the count of the flood's.
        line("10.0.0.7", at: Self.second)
        #expect(logged == 4 && reported == PeerLogBudget.Suppressed(lines: 997, addresses: 1))
        line("10.0.0.8", at: Self.second)
        line("10.0.0.9", at: Self.second)  // over the total
        #expect(logged == 5)
        // A new window: the flooding address has its share again, and the line left out is reported.
        line("10.0.0.66", at: 10 * Self.second)
        #expect(logged == 6 && reported == PeerLogBudget.Suppressed(lines: 998, addresses: 1))
    }

    @Test("no line is ever lost from the count: logged plus suppressed is every line, whatever the addresses")
    func everyLineCounted() {
        var budget = PeerLogBudget(limits: Self.limits)
        var logged = 0
        var suppressedReported = 0
        var now: UInt64 = 0
        for index in 0..<10_000 {
            now += Self.second / 7
            if case .log(let suppressed) = budget.line(from: "10.0.\(index % 50).1", now: now) {
                logged += 1
                suppressedReported += suppressed?.lines ?? 0
            }
        }
        // One more window, one more line: it reports the rest.
        if case .log(let suppressed) = budget.line(from: "10.9.9.9", now: now + 10 * Self.second) {
            logged += 1
            suppressedReported += suppressed?.lines ?? 0
        }
        #expect(logged + suppressedReported == 10_001)
        // At most the total a window: 10 000 lines over 1429 s are 143 windows.
        #expect(logged <= 5 * (Int(now / (10 * Self.second)) + 2))
    }

    @Test("addresses past those counted share one count, so the table stays small")
    func manyAddresses() {
        var budget = PeerLogBudget(
            limits: PeerLogBudget.Limits(window: Self.second, perAddress: 2, total: 1000, addressesCounted: 4))
        var logged = 0
        for index in 0..<10_000 {
            for _ in 0..<3 where budget.line(from: "fd00::\(index)", now: 0) != .suppress { logged += 1 }
        }
        // 4 addresses of 2 lines each, then 2 lines for all the others together.
        #expect(logged == 4 * 2 + 2)
    }

    @Test("PeerLog writes a suppressed line's count before the next line, and nothing under the logger's level")
    func peerLogLines() {
        let lines = Mutex<[String]>([])
        let logger = Logger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        let log = PeerLog(
            logger: logger,
            limits: PeerLogBudget.Limits(window: 3600 * Self.second, perAddress: 2, total: 3, addressesCounted: 8))
        for _ in 0..<50 { log.log(.info, "call failed", from: "127.0.0.1", ["peer": "127.0.0.1:5"]) }
        log.log(.debug, "chatter", from: "127.0.0.2")
        log.log(.info, "login failed", from: "127.0.0.2")
        let written = lines.withLock { $0 }
        #expect(written.count == 4)
        #expect(written.filter { $0.contains("call failed") }.count == 2)
        #expect(written[2].contains("log lines suppressed") && written[2].contains("lines=48"))
        #expect(written[3].contains("login failed"))
    }
}
