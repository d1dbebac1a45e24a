import Testing
import WaterProtocol

@testable import WaterServer

/// Who gets a slot, with no socket (issue 18 item 2; issue 30 item 6).
@Suite("Connection admission")
struct ConnectionAdmissionTests {
    static let limits = ConnectionAdmission.Limits(
        maximumConnections: 10, maximumPerAddress: 4, maximumPendingPerAddress: 2, maximumUnauthenticated: 10,
        maximumPending: 10)

    /// Admissions in the order they are asked for, with ids that grow as the registry's.
    struct Server {
        var admission: ConnectionAdmission
        var nextID: UInt64 = 1
        /// Connections with a call in flight.
        var busy: Set<UInt64> = []
        /// The connections closed to make room, in order.
        var evicted: [UInt64] = []

        init(_ limits: ConnectionAdmission.Limits) {
            admission = ConnectionAdmission(limits: limits)
        }

        func decision(for host: String) -> ConnectionAdmission.Decision {
            admission.decision(for: host) { !busy.contains($0) }
        }

        /// Why a new connection from `host` would be refused; nil when it would be admitted.
        func refusal(for host: String) -> WaterError? {
            if case .refuse(let refusal) = decision(for: host) { refusal } else { nil }
        }

        /// A new connection from `host`, admitted as the decision says (closing the one it
        /// names first); its id, or nil when refused.
        @discardableResult
        mutating func connect(_ host: String, handshake: Bool = false, login: Bool = false) -> UInt64? {
            switch decision(for: host) {
            case .refuse: return nil
            case .admitClosing(let victim):
                admission.closed(victim)
                evicted.append(victim)
            case .admit: break
            }
            let id = nextID
            nextID += 1
            admission.admitted(id, from: host)
            if handshake || login { admission.handshakeCompleted(id) }
            if login { admission.loggedIn(id) }
            return id
        }
    }

    @Test("an address gets its pending handshakes, then its share; a refusal counts against nobody")
    func perAddress() {
        var server = Server(Self.limits)
        for _ in 0..<2 { #expect(server.connect("127.0.0.2") != nil) }
        // Two silent ones: the third is refused until one finishes its handshake.
        for _ in 0..<100 {
            let refusal = server.refusal(for: "127.0.0.2")
            #expect(refusal?.code == .resourceExhausted && refusal?.message.contains("handshake") == true)
        }
        #expect(server.admission.open == 2 && server.admission.usage(of: "127.0.0.2") == (2, 2))
        server.admission.handshakeCompleted(1)
        server.admission.handshakeCompleted(2)
        for _ in 0..<2 { #expect(server.connect("127.0.0.2", handshake: true) != nil) }
        let refusal = server.refusal(for: "127.0.0.2")
        #expect(refusal?.code == .resourceExhausted && refusal?.message.contains("at most 4") == true)
        #expect(server.decision(for: "127.0.0.1") == .admit, "another address is not held back")
        server.admission.closed(3)
        #expect(server.decision(for: "127.0.0.2") == .admit, "a close makes room at once")
    }

    @Test("slots full of members: a new connection is refused; closes make room; the shutdown refuses all")
    func global() {
        var server = Server(Self.limits)
        for host in ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"] {
            for _ in 0..<2 { server.connect(host, login: true) }
        }
        #expect(server.admission.open == 10)
        #expect(
            server.decision(for: "10.0.0.9")
                == .refuse(WaterError(.resourceExhausted, "the server has too many connections; try again shortly")))
        server.admission.closed(1)
        #expect(server.admission.open == 9 && server.admission.usage(of: "10.0.0.1") == (1, 0))
        #expect(server.decision(for: "10.0.0.9") == .admit)
        server.admission.closed(1)
        server.admission.closed(2)
        server.admission.closed(2)
        #expect(
            server.admission.open == 8 && server.admission.usage(of: "10.0.0.1") == (0, 0),
            "an extra close changes nothing")
        server.admission.isShuttingDown = true
        #expect(server.refusal(for: "10.0.0.9")?.code == .unavailable)
    }

    @Test("at the cap of connections not logged in, the address holding the most loses its oldest idle one")
    func unauthenticatedCap() {
        var limits = Self.limits
        limits.maximumUnauthenticated = 6
        var server = Server(limits)
        // Two members (1, 2), then strangers: 3 to 6 from .2, 7 and 8 from .3.
        server.connect("10.0.0.1", login: true)
        server.connect("10.0.0.1", login: true)
        for _ in 0..<4 { server.connect("10.0.0.2", handshake: true) }
        for _ in 0..<2 { server.connect("10.0.0.3", handshake: true) }
        #expect(server.admission.open == 8 && server.admission.unauthenticatedCount == 6)
        // Below the slots, at the cap: .2 holds the most; its oldest goes.
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(3))
        server.busy = [3, 4]
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(5), "calls in flight keep a connection")
        server.busy = [3, 4, 5, 6]
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(3), "all of its busy: its oldest all the same")
        server.busy = []
        // One member logs in on a stranger's connection: it is no longer a candidate.
        server.admission.loggedIn(3)
        #expect(server.admission.unauthenticatedCount == 5 && server.decision(for: "10.0.0.4") == .admit)
        server.connect("10.0.0.4", handshake: true)
        // .2 holds the most, 3 of 6: it loses 4.
        #expect(server.connect("10.0.0.4") == 10 && server.evicted == [4])
        // .2, .3 and .4 hold 2 each: the oldest of theirs goes, 5.
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(5))
        #expect(server.connect("10.0.0.3") == 11 && server.evicted == [4, 5])
        // .3 holds the most (7, 8, 11): 7 goes, not 6, the oldest of all.
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(7))
    }

    @Test("a connection that logged in is never closed for another: only when they hold every slot is one refused")
    func loggedInNeverClosed() {
        var limits = Self.limits
        limits.maximumUnauthenticated = 3
        var server = Server(limits)
        var members: Set<UInt64> = []
        // Members and strangers take turns from 10 addresses, and strangers keep coming.
        for round in 0..<200 {
            let logsIn = round % 3 == 0 && members.count < 9
            let id = server.connect("10.0.0.\(round % 10)", handshake: true, login: logsIn)
            #expect(id != nil, "refused while strangers held slots")
            if logsIn, let id { members.insert(id) }
        }
        #expect(members.count == 9 && server.admission.open == 10)
        #expect(server.evicted.count > 100 && members.isDisjoint(with: server.evicted))
        // The last slot goes to a member too: now a new connection is refused.
        server.connect("10.0.0.1", handshake: true, login: true)
        #expect(server.admission.open == 10 && server.admission.unauthenticatedCount == 0)
        #expect(server.refusal(for: "10.0.0.2")?.code == .resourceExhausted, "no member's connection is closed")
    }

    @Test("at the cap of pending handshakes, the address with the most pending loses its oldest pending one")
    func pendingCap() {
        var limits = Self.limits
        limits.maximumPending = 3
        var server = Server(limits)
        server.connect("10.0.0.2", handshake: true)  // 1: past its handshake, not logged in
        server.connect("10.0.0.2")  // 2
        server.connect("10.0.0.2")  // 3
        server.connect("10.0.0.3")  // 4
        #expect(server.admission.pendingCount == 3 && server.admission.unauthenticatedCount == 4)
        // Not 1, the oldest that has not logged in: closing it would leave 3 pending.
        #expect(server.decision(for: "10.0.0.4") == .admitClosing(2))
        server.admission.handshakeCompleted(2)
        #expect(server.decision(for: "10.0.0.4") == .admit)
    }

    @Test(
        "issue 30: 8 addresses at their share hold every slot and keep reopening; a member's connection gets in, and is never the one closed"
    )
    func issue30_eightAddresses() {
        var server = Server(ServerConfiguration(dataDirectory: "/nonexistent").admissionLimits)
        let attackers = (2...9).map { "127.0.0.\($0)" }
        for host in attackers {
            for _ in 0..<32 { server.connect(host, handshake: true) }
        }
        #expect(server.admission.open == 256 - 64, "the reserve: 64 slots only a login keeps")
        var members: [UInt64] = []
        for round in 0..<100 {
            // The member connects: admitted, closing a stranger's.
            guard let member = server.connect("127.0.0.1") else {
                Issue.record("the member was refused")
                continue
            }
            members.append(member)
            // Attackers reopen as fast as they can while the member shakes hands and logs in,
            // a third of their connections silent (pending: past 96, the pending cap closes them).
            for index in 0..<300 {
                if index == 150 { server.admission.handshakeCompleted(member) }
                server.connect(attackers[(round + index) % 8], handshake: !index.isMultiple(of: 3))
            }
            server.admission.loggedIn(member)
            // It logs a drink and closes, but for one connection in ten, kept open.
            if round % 10 != 0 { server.admission.closed(member) }
        }
        #expect(members.count == 100 && Set(members).isDisjoint(with: server.evicted))
        #expect(server.evicted.count > 15_000, "the strangers churned their own")
        #expect(server.admission.pendingCount <= 96)
        #expect(server.admission.usage(of: "127.0.0.1") == (10, 0))
        // The strangers' 192 but the one the last member took and logged in on, and the 10 kept.
        #expect(server.admission.unauthenticatedCount == 191 && server.admission.open == 191 + 10)
    }

    @Test("the connection to close is the one a scan of every connection would find, after any inserts and removes")
    func candidatesAgainstAScan() {
        var candidates = EvictionCandidates()
        var model: [UInt64: String] = [:]
        var random: UInt64 = 42
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // Knuth's MMIX LCG
            return Int((random >> 33) % UInt64(bound))
        }
        for id in UInt64(1)...2000 {
            if model.isEmpty || next(5) < 3 {
                let host = "10.0.0.\(next(6))"
                candidates.insert(id, from: host)
                model[id] = host
            } else {
                let gone = model.keys.sorted()[next(model.count)]
                candidates.remove(gone, from: model.removeValue(forKey: gone)!)
            }
            let isIdle = { (id: UInt64) in !id.isMultiple(of: 3) }
            let held = Dictionary(grouping: model.keys, by: { model[$0]! })
            let most = held.values.map(\.count).max() ?? 0
            let theirs = held.values.filter { $0.count == most }.flatMap { $0 }
            #expect(candidates.victim(isIdle: isIdle) == (theirs.filter(isIdle).min() ?? theirs.min()))
            #expect(candidates.count == model.count)
        }
    }

    @Test("the caps default to a share, three quarters and half of it; none exceeds the one above it")
    func configuredShare() {
        var configuration = ServerConfiguration(dataDirectory: "/nonexistent")
        #expect(
            configuration.admissionLimits
                == .init(
                    maximumConnections: 256, maximumPerAddress: 32, maximumPendingPerAddress: 16,
                    maximumUnauthenticated: 192, maximumPending: 96))
        configuration.maximumConnections = 16
        #expect(
            configuration.admissionLimits
                == .init(
                    maximumConnections: 16, maximumPerAddress: 4, maximumPendingPerAddress: 2,
                    maximumUnauthenticated: 12, maximumPending: 6))
        configuration.maximumConnections = 2
        #expect(configuration.admissionLimits.maximumPerAddress == 2)
        #expect(configuration.admissionLimits.maximumUnauthenticated == 1, "at least one slot is kept for a login")
        configuration.maximumConnections = 1
        #expect(
            configuration.admissionLimits.maximumUnauthenticated == 1
                && configuration.admissionLimits.maximumPending == 1)
        configuration.maximumConnections = 2
        configuration.maximumConnectionsPerAddress = 100
        #expect(configuration.admissionLimits.maximumPerAddress == 2, "an explicit share is capped by the whole")
        configuration.maximumPendingHandshakesPerAddress = 8
        #expect(configuration.admissionLimits.maximumPendingPerAddress == 2, "and pending ones by the share")
        configuration.maximumUnauthenticatedConnections = 100
        configuration.maximumPendingHandshakes = 100
        #expect(configuration.admissionLimits.maximumUnauthenticated == 2, "capped by the whole")
        #expect(configuration.admissionLimits.maximumPending == 2, "capped by those not logged in")
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
