import Foundation
import Glibc
import WaterSync
import WaterTransport

/// A client with no account sending crafted frames at a steady rate, from a thread of its own:
/// the frames in turn, each written whole, reconnecting (and shaking hands again) whenever the
/// server closes the connection, reading every reply.
final class Attacker: @unchecked Sendable {
    struct Totals {
        var frames = 0
        var bytes = 0
        var connections = 0
        var seconds = 0.0
        var failure: String?
    }

    private let address: HostPort
    private let frames: [CraftedFrames.Frame]
    private let bytesPerSecond: Int
    private let stopping = Locked(false)
    private let totals = Locked(Totals())

    init(_ address: HostPort, frames: [CraftedFrames.Frame], bytesPerSecond: Int) {
        (self.address, self.frames, self.bytesPerSecond) = (address, frames, bytesPerSecond)
    }

    func start() -> Thread {
        let thread = Thread { [self] in
            do {
                try run()
            } catch {
                totals.withLock { $0.failure = "\(error)" }
            }
        }
        thread.start()
        return thread
    }

    /// Stops the thread (within one frame's time) and returns what it sent.
    func stop(_ thread: Thread) -> Totals {
        stopping.withLock { $0 = true }
        while !thread.isFinished { usleep(1000) }
        return totals.withLock { $0 }
    }

    private func run() throws {
        let start = Measure.now()
        var socket: Socket?
        var sent = 0
        var next = 0
        defer { socket?.close() }
        while !stopping.withLock({ $0 }) {
            let connection = try socket ?? ServerBenchmark.handshaken(address)
            if socket == nil {
                socket = connection
                totals.withLock { $0.connections += 1 }
            }
            let frame = frames[next % frames.count]
            next += 1
            try MemberProbe.writeAll(frame.bytes, to: connection)
            sent += frame.bytes.count
            // Its reply, or the close of a connection the frame was refused with: the server has
            // inspected it before the next one is counted.
            let replies = try MemberProbe.readReplies(frame.closesConnection ? .max : 1, from: connection)
            if frame.closesConnection || replies.isEmpty {
                connection.close()
                socket = nil
            }
            totals.withLock {
                $0.frames += 1
                $0.bytes = sent
                $0.seconds = Double(Measure.now() - start) / 1e9
            }
            // Keep to the rate: sleep until `sent` bytes are due.
            let due = start + UInt64(Double(sent) / Double(bytesPerSecond) * 1e9)
            let now = Measure.now()
            if due > now { usleep(UInt32(min((due - now) / 1000, 1_000_000))) }
        }
    }
}
