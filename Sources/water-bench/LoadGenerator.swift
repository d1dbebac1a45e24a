import CLinux
import Foundation
import Glibc
import WaterTLS
import WaterTransport

/// Drives a server from many connections over loopback, closed loop, the way redis-benchmark
/// does: every request is encoded before the clock starts, one thread multiplexes every
/// connection with epoll, and no client library runs on either side. Each connection sends
/// its next request as soon as the reply to the last one is complete.
struct LoadGenerator {
    /// How a reply is delimited on the wire.
    enum Framing {
        /// water's frames: flags, a 4-byte big-endian length, the payload.
        case water
        /// One RESP value (Redis).
        case redis
    }

    struct Result {
        var operations: Int
        var perSecond: Double
        var p50: Double
        var p99: Double
        /// The server process's user + system time per operation, from /proc.
        var serverCPUMicroseconds: Double
    }

    private final class Lane {
        let socket: Socket
        /// The connection's TLS session, past its handshake; nil in plaintext.
        let tls: TLSSession?
        let requests: [[UInt8]]
        var sent = 0
        var input: [UInt8] = []
        var sentAt: UInt64 = 0

        init(socket: Socket, tls: TLSSession?, requests: [[UInt8]]) {
            (self.socket, self.tls, self.requests) = (socket, tls, requests)
        }
    }

    /// Sends every request of every lane, one at a time per lane, and measures.
    /// - Parameters:
    ///   - lanes: connected sockets (already past any handshake), each with its requests.
    ///   - tls: each lane's TLS session (past its handshake), when the server speaks TLS: the
    ///     requests are encrypted as they are sent, on this side.
    ///   - serverPID: whose CPU time to count.
    static func run(_ lanes: [(Socket, [[UInt8]])], tls: [TLSSession] = [], framing: Framing, serverPID: Int32) throws
        -> Result
    {
        let epoll = CLinux_epoll_create()
        guard epoll >= 0 else { throw WaterBenchError("epoll_create: errno \(errno)") }
        defer { close(epoll) }
        let lanes = lanes.enumerated().map {
            Lane(socket: $0.element.0, tls: tls.isEmpty ? nil : tls[$0.offset], requests: $0.element.1)
        }
        for (index, lane) in lanes.enumerated() {
            try lane.socket.setNonBlocking()
            guard CLinux_epoll_control(epoll, 0, lane.socket.descriptor, UInt32(CLinux_EPOLLIN), UInt64(index)) == 0
            else { throw WaterBenchError("epoll_ctl: errno \(errno)") }
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(lanes.reduce(0) { $0 + $1.requests.count })
        let cpuBefore = cpuMicroseconds(of: serverPID)
        let start = Measure.now()
        for lane in lanes { try send(lane) }
        var open = lanes.filter { !$0.requests.isEmpty }.count
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while open > 0 {
            let count = CLinux_epoll_wait(epoll, &tokens, &events, 256, 10_000)
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw WaterBenchError("the server stopped answering (\(open) connections waiting)")
            }
            for index in 0..<Int(count) {
                let lane = lanes[Int(tokens[index])]
                while case .success(let read?) = chunk.withUnsafeMutableBytes({ raw in
                    Swift.Result { () throws(SocketError) in try lane.socket.read(into: raw) }
                }) {
                    guard read > 0 else { throw WaterBenchError("the server closed a connection") }
                    try receive(chunk[0..<read], on: lane)
                }
                while let end = replyEnd(lane.input, framing) {
                    lane.input.removeFirst(end)
                    latencies.append(Double(Measure.now() - lane.sentAt) / 1000)
                    if lane.sent == lane.requests.count {
                        open -= 1
                    } else {
                        try send(lane)
                    }
                }
            }
        }
        let seconds = Double(Measure.now() - start) / 1e9
        let cpu = cpuMicroseconds(of: serverPID) - cpuBefore
        return Result(
            operations: latencies.count, perSecond: Double(latencies.count) / seconds,
            p50: Measure.median(latencies), p99: Measure.percentile(latencies, 0.99),
            serverCPUMicroseconds: cpu / Double(latencies.count))
    }

    /// Bytes from the socket into the lane's input, decrypted first over TLS.
    private static func receive(_ bytes: ArraySlice<UInt8>, on lane: Lane) throws {
        guard let tls = lane.tls else { return lane.input += bytes }
        guard let plaintext = try tls.decrypt(Array(bytes)) else { throw WaterBenchError("the server ended TLS") }
        lane.input += plaintext
    }

    private static func send(_ lane: Lane) throws {
        var request = lane.requests[lane.sent]
        lane.sent += 1
        lane.sentAt = Measure.now()
        if let tls = lane.tls {
            try tls.write(request)
            request = tls.takeOutput()
        }
        var done = 0
        while done < request.count {
            switch request.withUnsafeBytes({ raw in
                Swift.Result { () throws(SocketError) in
                    try lane.socket.write(UnsafeRawBufferPointer(rebasing: raw[done...]))
                }
            }) {
            case .success(let written): done += written  // 0 only while the peer's window is full
            case .failure(let error): throw WaterBenchError("send: \(error)")
            }
        }
    }

    /// Where the first complete reply in `bytes` ends, or nil when it is not all there yet.
    static func replyEnd(_ bytes: [UInt8], _ framing: Framing) -> Int? {
        switch framing {
        case .water:
            guard bytes.count >= 5 else { return nil }
            let length = bytes[1..<5].reduce(0) { $0 << 8 | Int($1) }
            return bytes.count >= 5 + length ? 5 + length : nil
        case .redis:
            return respEnd(bytes, from: 0)
        }
    }

    /// The end of the RESP value starting at `start`, or nil when incomplete.
    private static func respEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count, let lineEnd = lineEnd(bytes, from: start) else { return nil }
        let number = Int(String(decoding: bytes[(start + 1)..<lineEnd], as: UTF8.self)) ?? 0
        switch bytes[start] {
        case UInt8(ascii: "$"):
            let end = lineEnd + 2 + max(number, 0) + (number >= 0 ? 2 : 0)
            return bytes.count >= end ? end : nil
        case UInt8(ascii: "*"):
            var offset = lineEnd + 2
            for _ in 0..<max(number, 0) {
                guard let next = respEnd(bytes, from: offset) else { return nil }
                offset = next
            }
            return offset
        default:  // +simple, -error, :integer
            return lineEnd + 2
        }
    }

    private static func lineEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// User + system time of a process so far, from /proc/PID/stat.
    static func cpuMicroseconds(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = text.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name: state is field 3; utime and stime are 14 and 15.
        let fields = text[text.index(after: afterName)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
