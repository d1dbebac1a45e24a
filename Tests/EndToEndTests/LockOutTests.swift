import Foundation
import Glibc
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterSync
import WaterTestSupport
import WaterTransport

@Suite("No lock-out by connections, end to end", .serialized)
struct LockOutTests {
    @Test(
        "300 silent connections from one device: 16 are pending handshakes, the rest get RESOURCE_EXHAUSTED and an end at once"
    )
    func silentConnections() throws {
        // A handshake deadline far past the receive timeout: a refusal that waited for anything
        // would be seen still open.
        let server = try ServerProcess.fresh(["--handshake-deadline", "60"])
        let held = try (0..<16).map { _ in try connect(from: "127.0.0.2", to: server.address) }
        defer { held.forEach { close($0) } }
        var refusals: [WaterV1.StatusCode?] = []
        var endings: [Ending] = []
        for _ in 0..<284 {
            let fd = try connect(from: "127.0.0.2", to: server.address, timeoutSeconds: 10)
            defer { close(fd) }
            refusals.append(try firstReply(fd)?.statusCode)
            endings.append(ending(of: fd))
        }
        #expect(
            refusals.allSatisfy { $0 == .resourceExhausted }, "\(Set(refusals.map { "\(String(describing: $0))" }))")
        #expect(endings.allSatisfy { $0 == .closed }, "each refusal ends its connection without waiting")
        // The member on another address is served at once, whoever holds the 16.
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        // Refused connections were never counted: the status file, written after them, counts
        // the 16 silent ones and mum's.
        let after = UnixTime.nowMilliseconds()
        #expect(waitUntil { Int64(server.statusFile["updated_at_unix_ms"] ?? "") ?? 0 > after })
        #expect(server.statusFile["connections"] == "17")
        #expect(server.stop() == 0)
        #expect(server.log.contains("connection refused"))
        // A line per 10 s, not per refusal: nothing a device does fills the log.
        let lines = server.log.split(separator: "\n").filter { $0.contains("connection refused") }
        #expect(lines.count < 10, "\(lines.count) lines about refusals")
    }

    @Test(
        "over TLS, ~300 silent connections from one address kept topped up: a member elsewhere logs a drink on every try"
    )
    func silentConnectionsOverTLS() throws {
        let server = try ServerProcess.fresh(["--handshake-deadline", "60", "--max-connections", "64"], tls: true)
        let address = server.address
        // The attacker: 300 connections from 127.0.0.2 that never say anything, each opened
        // again as soon as the server closes it, until the member is done.
        let stop = Locked(false)
        let reopened = Locked(0)
        let attackerDone = DispatchSemaphore(value: 0)
        let opened = DispatchSemaphore(value: 0)
        Thread {
            defer { attackerDone.signal() }
            var fds = (0..<300).compactMap { _ in try? connect(from: "127.0.0.2", to: address) }
            opened.signal()
            defer { fds.forEach { close($0) } }
            keepReopening(&fds, fd: \.self, until: stop, reopened: reopened) { _ in
                try? connect(from: "127.0.0.2", to: address)
            }
        }.start()
        #expect(opened.wait(timeout: .now() + 60) == .success)
        // Wait until the server has refused (closed) the connections over its share.
        #expect(waitUntil { reopened.withLock { $0 } >= 300 })
        var latencies: [Double] = []
        for _ in 0..<20 {
            let start = ContinuousClock.now
            let mum = try server.client("mum", password: adminPassword)
            let day = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 100)).day
            #expect(day?.amountMl ?? 0 >= 100)
            latencies.append(Double((ContinuousClock.now - start).components.attoseconds) / 1e15)
        }
        stop.withLock { $0 = true }
        #expect(attackerDone.wait(timeout: .now() + 60) == .success)
        #expect(latencies.count == 20)
        let median = latencies.sorted()[latencies.count / 2]
        print("member from 127.0.0.1: 20 tries, \(latencies.count) logged; median connect+login+log \(median) ms")
        print("attacker from 127.0.0.2: \(reopened.withLock { $0 }) connections refused and reopened")
        #expect(server.stop() == 0)
    }

    @Test("a server full of members' connections answers RESOURCE_EXHAUSTED, as proto/README.md says")
    func fullServer() throws {
        let server = try ServerProcess.fresh(["--max-connections", "8", "--max-per-address", "100"])
        let token = try server.client("mum", password: adminPassword).token  // its connection closes here
        // Eight connections that have logged in: none is closed to make room for a new one.
        let held = try (0..<8).map { _ in try ConnectionTests.loggedIn(server.address, token: token) }
        defer { held.forEach { $0.close() } }
        let fd = try connect(from: "127.0.0.3", to: server.address)
        defer { close(fd) }
        let refusal = try #require(try firstReply(fd))
        #expect(refusal.statusCode == .resourceExhausted && refusal.callID == WireProtocol.connectionCallID)
        #expect(ending(of: fd) == .closed)
        #expect(server.stop() == 0)
    }
}
