import WaterProtocol
import WaterTransport

/// A member's closed-loop calls on one logged-in connection: GetToday, one at a time, each sent
/// as soon as the last one's reply is complete.
final class MemberProbe: @unchecked Sendable {
    private let socket: Socket
    private let request: [UInt8]

    init(_ address: HostPort, token: [UInt8]) throws {
        socket = try ServerBenchmark.handshaken(address)
        try socket.setReceiveTimeout(milliseconds: 30_000)
        request = try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: 2, token: token)
    }

    deinit { socket.close() }

    /// Calls for `seconds`; each call's latency in microseconds.
    func calls(for seconds: Double) throws -> [Double] {
        let end = Measure.now() + UInt64(seconds * 1e9)
        return try calls(until: { Measure.now() >= end }, atMost: 10_000_000)
    }

    /// Calls until `stop()` (asked before each call) or `limit` calls.
    func calls(until stop: () -> Bool, atMost limit: Int) throws -> [Double] {
        var latencies: [Double] = []
        while latencies.count < limit, !stop() { latencies.append(try call()) }
        return latencies
    }

    /// One call; its latency in microseconds.
    /// - Throws: when it fails or gets no reply within 30 s (the connection is then unusable).
    func call() throws -> Double {
        let start = Measure.now()
        try Self.writeAll(request, to: socket)
        let reply = try Self.readReplies(1, from: socket)
        guard reply.first?.statusCode == .ok else { throw WaterBenchError("GetToday failed: \(reply)") }
        return Double(Measure.now() - start) / 1000
    }

    /// Writes all of `bytes` to a blocking socket.
    static func writeAll(_ bytes: [UInt8], to socket: Socket) throws {
        var done = 0
        while done < bytes.count {
            done += try bytes.withUnsafeBytes { try socket.write(UnsafeRawBufferPointer(rebasing: $0[done...])) }
        }
    }

    /// Reads `count` replies, or fewer when the server closes the connection first (a refusal
    /// of the whole connection); a reply's payload is never compressed at these sizes.
    static func readReplies(_ count: Int, from socket: Socket) throws -> [WaterV1.ResponseEnvelope] {
        try socket.setReceiveTimeout(milliseconds: 30_000)
        var decoder = FrameDecoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
        var replies: [WaterV1.ResponseEnvelope] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while replies.count < count {
            while let frame = try decoder.nextFrame() {
                replies.append(try WaterV1.ResponseEnvelope(serializedBytes: frame.payload))
            }
            guard replies.count < count else { break }
            let read = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard let read else { throw WaterBenchError("no reply within 30 s") }
            if read == 0 { break }
            decoder.append(buffer[0..<read])
        }
        return replies
    }
}
