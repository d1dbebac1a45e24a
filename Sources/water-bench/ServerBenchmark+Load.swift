import WaterClient
import WaterCore
import WaterProtocol
import WaterTLS
import WaterTransport

/// What the load generator sends: handshaken sockets and frames encoded ahead of time, the same
/// closed loop against water-server and against Redis.
extension ServerBenchmark {
    /// The closed loop of logs: `connections` handshaken sockets, each logging `times` times as
    /// one of the historic members.
    static func runLogs(
        _ server: Spawned, _ address: HostPort, connections: Int, times: Int, tokens: [[UInt8]]
    ) throws -> LoadGenerator.Result {
        try LoadGenerator.run(
            try (0..<connections).map {
                (try Self.handshaken(address), Self.logRequests(times, token: tokens[$0 % Self.historic]))
            }, framing: .water, serverPID: server.pid)
    }

    /// The same closed loop against Redis: `connections` sockets, each sending `request` `times` times.
    static func runRedis(
        _ redis: Spawned, port: UInt16, connections: Int, sending request: [UInt8], times: Int
    ) throws -> LoadGenerator.Result {
        try LoadGenerator.run(
            try (0..<connections).map { _ in
                (
                    try Socket.connect(to: HostPort(host: "127.0.0.1", port: port)),
                    Array(repeating: request, count: times)
                )
            }, framing: .redis, serverPID: redis.pid)
    }

    /// A raw connection past the handshake, for the load generator.
    static func handshaken(_ address: HostPort) throws -> Socket {
        try handshaken(address, security: .plaintext).socket
    }

    /// A raw connection past TLS (unless `security` is plaintext) and the protocol's handshake.
    static func handshaken(_ address: HostPort, security: ClientConfiguration.Security) throws -> (
        socket: Socket, tls: TLSSession?
    ) {
        let socket = try Socket.connect(to: address)
        let tls =
            security == .plaintext
            ? nil
            : try WaterConnection.handshakeTLS(ClientConfiguration(server: address, security: security), on: socket)
        var hello = try frame(
            WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version, clientName: "water-bench"),
            callID: 1, token: [])
        if let tls {
            try tls.write(hello)
            hello = tls.takeOutput()
        }
        _ = try hello.withUnsafeBytes { try socket.write($0) }
        var reply = [UInt8](repeating: 0, count: 4096)
        var received: [UInt8] = []
        while LoadGenerator.replyEnd(received, .water) == nil {
            guard let count = try reply.withUnsafeMutableBytes({ try socket.read(into: $0) }), count > 0 else {
                throw WaterBenchError("the handshake got no reply")
            }
            received += try tls.map { try $0.decrypt(Array(reply[0..<count])) ?? [] } ?? Array(reply[0..<count])
        }
        return (socket, tls)
    }

    /// `count` LogWater frames with ids of their own, encoded now: made as `WaterClient.newID`
    /// makes them (a millisecond each, counter 0, one installation of its own, new for every
    /// call so that no two runs make the same id), so the archives hold what a client's drinks
    /// would put there; each drunk at a time ``BenchDrinks`` gives, within the member's caps.
    static func logRequests(_ count: Int, token: [UInt8]) -> [[UInt8]] {
        let start = UnixTime.nowMilliseconds() - Int64(count) - 60_000
        let installation = UInt64.random(in: 1..<(1 << 62))
        let times = BenchDrinks.times(count, for: token)
        return (0..<count).map { n in
            let id = RecordID.timeOrdered(unixMilliseconds: start + Int64(n), counter: 0, installation: installation)
            return
                (try? frame(
                    WaterV1.LogWaterRequest(entryID: id.description, amountMl: 250, atUnixMs: times[n]),
                    callID: UInt64(n + 2), token: token)) ?? []
        }
    }

    static func frame<Request: RPCRequest>(_ request: Request, callID: UInt64, token: [UInt8]) throws -> [UInt8] {
        try FrameEncoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
            .encode(WaterV1.RequestEnvelope(callID: callID, request: request, authToken: token).serializedBytes())
    }
}
