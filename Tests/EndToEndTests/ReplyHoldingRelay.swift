import Foundation
import Glibc
import WaterProtocol
import WaterSync
import WaterTransport

/// A TCP relay between clients and a plaintext `water-server` that passes the server's replies
/// on a whole frame at a time, the first `limit` of them, and then holds the next one until
/// ``release()``: a client stopped at a known point of its conversation (its Nth reply), for a
/// test that kills it there. Requests go to the server as they come, so the server answers
/// the held call; only its answer waits.
///
///     client ── requests, as they come ─────────▶ relay ──▶ server
///     client ◀── the first `limit` reply frames ── relay ◀── server
///
/// A reply frame is what proto/README.md draws: 1 flags byte, a 4-byte big-endian length,
/// then `length` bytes. The count is over every connection the relay carries, in the order
/// the frames reach it; ``connections`` says how many it carried, and ``log`` what went each
/// way on each (for a failing test to show). Each connection gets two threads; ``stop()`` ends
/// them all and only then closes the descriptors (a closed number may be another test's socket
/// a moment later).
final class ReplyHoldingRelay: Sendable {
    private struct State {
        /// Reply frames passed on so far.
        var passed = 0
        /// Connections accepted so far; each is numbered by its place, from 1.
        var connections = 0
        /// What went each way, frame by frame: `#N -> call C Method` for a request on connection
        /// N, `#N <- call C passed K` (the Kth reply passed) or `held` for a reply.
        var log: [String] = []
        /// How many may pass; nil once released.
        var limit: Int?
        var stopped = false
        /// Every descriptor open, the listener's first, to shut down in ``stop()``.
        var descriptors: [Int32] = []
    }

    /// The address clients connect to.
    let address: HostPort
    private let server: HostPort
    private let listener: Socket
    private let state: Locked<State>
    /// Opened once, by ``release()`` or ``stop()``: a held frame then goes on (or is dropped).
    private let opened = DispatchSemaphore(value: 0)
    /// Signalled once a frame is held.
    private let holding = DispatchSemaphore(value: 0)
    /// Every thread of the relay, for ``stop()`` to wait for.
    private let threads = DispatchGroup()

    /// Listens on `address` (port 0 picks one) and relays each connection to `server`, passing
    /// the first `limit` reply frames on.
    init(listeningOn address: HostPort = HostPort(host: "127.0.0.1", port: 0), to server: HostPort, passing limit: Int)
        throws
    {
        listener = try Socket.listen(on: address)
        self.address = HostPort(host: address.host, port: listener.localAddress?.port ?? address.port)
        self.server = server
        state = Locked(State(limit: limit, descriptors: [listener.descriptor]))
        // Socket.listen makes an event loop's non-blocking socket; these threads simply wait.
        _ = fcntl(listener.descriptor, F_SETFL, fcntl(listener.descriptor, F_GETFL) & ~O_NONBLOCK)
        spawn { self.acceptConnections() }
    }

    /// Waits (at most `seconds`) until a reply frame is held: the client has had its `limit`
    /// replies and the server has answered its next call. Whether it came in time.
    func waitUntilHolding(seconds: Int) -> Bool {
        guard holding.wait(timeout: .now() + .seconds(seconds)) == .success else { return false }
        holding.signal()  // for the next caller
        return true
    }

    /// Reply frames passed on so far.
    var passed: Int { state.withLock { $0.passed } }

    /// Connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }

    /// What went each way on each connection, one line a frame, in the order the relay saw them.
    var log: String { state.withLock { $0.log.joined(separator: "\n") } }

    private func note(_ line: String) {
        state.withLock { $0.log.append(line) }
    }

    /// From now on every reply frame passes, the held one first.
    func release() {
        state.withLock { $0.limit = nil }
        opened.signal()
    }

    /// Stops accepting, ends every connection and waits for every thread, then closes.
    func stop() {
        let descriptors = state.withLock { state in
            state.stopped = true
            return state.descriptors
        }
        opened.signal()
        // shutdown wakes the threads blocked in accept and read; nothing is closed yet.
        for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        threads.wait()
        for descriptor in state.withLock({ $0.descriptors }) { close(descriptor) }
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        Thread { [threads] in
            defer { threads.leave() }
            body()
        }.start()
    }

    /// Whether the relay still runs; records `descriptor` for ``stop()`` while it does.
    private func keep(_ descriptor: Int32) -> Bool {
        state.withLock { state in
            state.descriptors.append(descriptor)
            return !state.stopped
        }
    }

    private func acceptConnections() {
        while true {  // until stop() shuts the listener down
            let client = accept(listener.descriptor, nil, nil)
            guard client >= 0 else { return }
            guard keep(client) else { return }
            guard let upstream = try? Socket.connect(to: server) else {
                shutdown(client, Int32(SHUT_RDWR))  // the client sees the server gone; closed in stop()
                continue
            }
            guard keep(upstream.descriptor) else { return }
            let number = state.withLock { state in
                state.connections += 1
                state.log.append("#\(state.connections) connected")
                return state.connections
            }
            spawn { self.copy(from: client, to: upstream.descriptor, connection: number) }
            spawn { self.passReplies(from: upstream.descriptor, to: client, connection: number) }
        }
    }

    /// Requests: every byte, as it comes, until either side ends; each whole frame logged.
    private func copy(from source: Int32, to destination: Int32, connection: Int) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        while true {
            let count = Glibc.read(source, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0, Self.writeAll(buffer[0..<count], to: destination) else { break }
            pending += buffer[0..<count]
            while pending.count >= 5 {
                let length = pending[1..<5].reduce(0) { $0 << 8 | Int($1) }
                guard pending.count >= 5 + length else { break }
                let envelope = try? WaterV1.RequestEnvelope(serializedBytes: Array(pending[5..<5 + length]))
                note("#\(connection) -> call \(envelope.map { "\($0.callID) \($0.method)" } ?? "(unreadable)")")
                pending.removeFirst(5 + length)
            }
        }
        note("#\(connection) -> end")
        shutdown(destination, Int32(SHUT_WR))
    }

    /// Replies: frame by frame, each once the count allows it.
    private func passReplies(from source: Int32, to destination: Int32, connection: Int) {
        while let header = Self.readExactly(5, from: source) {
            let length = header[1...].reduce(0) { $0 << 8 | Int($1) }
            guard let payload = Self.readExactly(length, from: source) else { break }
            let call =
                (try? WaterV1.ResponseEnvelope(serializedBytes: payload)).map { "\($0.callID)" } ?? "(unreadable)"
            guard mayPass(connection: connection, call: call) else { break }
            guard Self.writeAll(header + payload, to: destination) else { break }
        }
        note("#\(connection) <- end")
        shutdown(destination, Int32(SHUT_WR))
    }

    /// Counts one frame, holding it first while the limit is reached; false once stopped.
    private func mayPass(connection: Int, call: String) -> Bool {
        func admitted() -> Bool? {
            state.withLock { state in
                if state.stopped { return false }
                guard state.limit.map({ state.passed < $0 }) ?? true else { return nil }
                state.passed += 1
                state.log.append("#\(connection) <- call \(call) passed \(state.passed)")
                return true
            }
        }
        if let answer = admitted() { return answer }
        note("#\(connection) <- call \(call) held")
        holding.signal()
        opened.wait()
        opened.signal()  // it stays open, for every other held frame
        return admitted() ?? false
    }

    /// Exactly `count` bytes, or nil at the end of the stream.
    private static func readExactly(_ count: Int, from descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, count - done) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }

    private static func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) -> Bool {
        let bytes = Array(bytes)
        var done = 0
        while done < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(descriptor, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            done += sent
        }
        return true
    }
}
