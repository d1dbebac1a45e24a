import CLinux
import Glibc
import WaterProtocol
import WaterTransport

/// One member's read sent over and over on many connections at once, several calls in flight on
/// each (a pipelining client, or a script's parallel commands): what the server is asked while
/// another member's calls are timed. One thread multiplexes every connection with epoll, as
/// ``LoadGenerator`` does, but keeps `depth` calls in flight per connection instead of one, for a
/// fixed time, and reads every reply's status.
struct PipelinedReads {
    struct Totals {
        /// Replies received, whatever their status.
        var replies = 0
        /// Replies by status code (gRPC's numbers), with the first message of each code.
        var statuses: [Int32: (count: Int, message: String)] = [:]
        /// Bytes of replies on the wire.
        var bytes = 0
        /// From the first call sent to the last reply received.
        var seconds = 0.0

        /// Replies with the status `code`.
        func count(_ code: WaterV1.StatusCode) -> Int { statuses[code.rawValue]?.count ?? 0 }
    }

    private final class Lane {
        let socket: Socket
        var decoder = FrameDecoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
        var inFlight = 0
        var nextCallID: UInt64 = 2

        init(socket: Socket) { self.socket = socket }
    }

    /// How long the whole run may take after the sending stops, for the calls still in flight.
    static let drainLimitSeconds = 120.0

    /// Sends a call on every connection, `depth` in flight on each, a new one as soon as a reply
    /// is complete, for `seconds`; then sends no more and waits for the replies to the calls
    /// still in flight.
    /// - Parameters:
    ///   - sockets: connections past the handshake; they are left non-blocking, with no call in
    ///     flight.
    ///   - frame: the call's frame with the given call id (unique on its connection).
    /// - Throws: when a connection closes or fails, or the replies take more than
    ///   ``drainLimitSeconds`` once the sending stops.
    static func run(_ sockets: [Socket], depth: Int, seconds: Double, frame: (_ callID: UInt64) throws -> [UInt8])
        throws -> Totals
    {
        let epoll = CLinux_epoll_create()
        guard epoll >= 0 else { throw WaterBenchError("epoll_create: errno \(errno)") }
        defer { close(epoll) }
        let lanes = sockets.map(Lane.init)
        for (index, lane) in lanes.enumerated() {
            try lane.socket.setNonBlocking()
            guard CLinux_epoll_control(epoll, 0, lane.socket.descriptor, UInt32(CLinux_EPOLLIN), UInt64(index)) == 0
            else { throw WaterBenchError("epoll_ctl: errno \(errno)") }
        }
        var totals = Totals()
        let start = Measure.now()
        let sendingEnds = start + UInt64(seconds * 1e9)
        let drainEnds = sendingEnds + UInt64(drainLimitSeconds * 1e9)
        for lane in lanes {
            for _ in 0..<depth { try send(frame, on: lane) }
        }
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while lanes.contains(where: { $0.inFlight > 0 }) {
            guard Measure.now() < drainEnds else {
                throw WaterBenchError("replies still missing \(Int(drainLimitSeconds)) s after the reads stopped")
            }
            let count = CLinux_epoll_wait(epoll, &tokens, &events, 256, 1000)
            if count < 0, errno != EINTR { throw WaterBenchError("epoll_wait: errno \(errno)") }
            for index in 0..<max(Int(count), 0) {
                let lane = lanes[Int(tokens[index])]
                while let read = try chunk.withUnsafeMutableBytes({ try lane.socket.read(into: $0) }) {
                    guard read > 0 else { throw WaterBenchError("the server closed a reader's connection") }
                    totals.bytes += read
                    lane.decoder.append(chunk[0..<read])
                }
                while let received = try lane.decoder.nextFrame() {
                    let reply = try WaterV1.ResponseEnvelope(serializedBytes: received.payload)
                    let code = reply.statusCode.rawValue
                    totals.statuses[code, default: (0, reply.status?.message ?? "")].count += 1
                    totals.replies += 1
                    lane.inFlight -= 1
                    if Measure.now() < sendingEnds { try send(frame, on: lane) }
                }
            }
        }
        totals.seconds = Double(Measure.now() - start) / 1e9
        return totals
    }

    /// Writes one call whole. Its frame is a few dozen bytes and at most `depth` are unanswered,
    /// so the socket's buffer always takes it: a short write means the server stopped reading.
    private static func send(_ frame: (UInt64) throws -> [UInt8], on lane: Lane) throws {
        let bytes = try frame(lane.nextCallID)
        lane.nextCallID += 1
        let written = try bytes.withUnsafeBytes { try lane.socket.write($0) }
        guard written == bytes.count else { throw WaterBenchError("the server stopped reading a reader's calls") }
        lane.inFlight += 1
    }
}
