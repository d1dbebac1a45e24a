import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTransport

/// A TCP connection to `address` from the loopback address `source` (127.0.0.2 is a second
/// device on the same machine), with a receive timeout.
private func connect(from source: String, to server: HostPort) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    func socketAddress(_ host: String, _ port: UInt16) -> sockaddr_in {
        var value = sockaddr_in()
        value.sin_family = sa_family_t(AF_INET)
        value.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &value.sin_addr)
        return value
    }
    var local = socketAddress(source, 0)
    var remote = socketAddress(server.host, server.port)
    let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    let connected = withUnsafePointer(to: &remote) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0, connected == 0 else { throw SocketError(operation: "connect", errno: errno) }
    return fd
}

/// The first reply the server sends on `fd` (a refusal comes unasked), or nil when it closes or
/// says nothing within the receive timeout.
private func firstReply(_ fd: Int32) throws -> WaterV1.ResponseEnvelope? {
    var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        decoder.append(buffer[0..<count])
        if let frame = try decoder.nextFrame() { return try WaterV1.ResponseEnvelope(serializedBytes: frame.payload) }
    }
}

@Suite("No lock-out by connections, end to end", .serialized)
struct LockOutTests {
    @Test(
        "300 silent connections from one device: it gets 32, the rest RESOURCE_EXHAUSTED, and a member elsewhere logs a drink at once"
    )
    func silentConnections() throws {
        let server = try ServerProcess.fresh(["--handshake-deadline", "3"])
        let held = try (0..<32).map { _ in try connect(from: "127.0.0.2", to: server.address) }
        defer { held.forEach { close($0) } }
        var refusedCodes: [WaterV1.StatusCode] = []
        for _ in 0..<268 {
            let fd = try connect(from: "127.0.0.2", to: server.address)
            defer { close(fd) }
            refusedCodes.append(try firstReply(fd)?.statusCode ?? .ok)
        }
        #expect(refusedCodes.allSatisfy { $0 == .resourceExhausted }, "\(Set(refusedCodes))")
        let start = Date()
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        #expect(Date().timeIntervalSince(start) < 2, "logging in and a drink took \(Date().timeIntervalSince(start)) s")
        // The silent ones are closed at the handshake deadline, with the reason.
        let silent = try firstReply(held[0])
        #expect(silent?.statusCode == .deadlineExceeded)
        #expect(server.stop() == 0)
    }

    @Test("a full server answers RESOURCE_EXHAUSTED, as proto/README.md says")
    func fullServer() throws {
        let server = try ServerProcess.fresh(["--max-connections", "8", "--max-per-address", "100"])
        let held = try (0..<8).map { _ in try connect(from: "127.0.0.1", to: server.address) }
        defer { held.forEach { close($0) } }
        let fd = try connect(from: "127.0.0.3", to: server.address)
        defer { close(fd) }
        let refusal = try #require(try firstReply(fd))
        #expect(refusal.statusCode == .resourceExhausted && refusal.callID == WireProtocol.connectionCallID)
        #expect(server.stop() == 0)
    }
}
