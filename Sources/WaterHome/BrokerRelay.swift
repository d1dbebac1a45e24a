import Dispatch
import Glibc
import WaterSync
import WaterTransport

/// Stands between libmosquitto and the broker for one connection, so that the server, not
/// libmosquitto, reads the broker's bytes first: each packet is checked by its fixed header
/// (``BrokerPacketFilter``) before libmosquitto sees a byte of it, and the first one refused ends
/// the connection.
///
/// libmosquitto 2.0.11 cannot bound what a broker sends a client: it allocates whatever
/// remaining length a packet announces (up to 256 MB) before reading it, and with MQTT 3.1.1
/// keeps every QoS 2 PUBLISH until it is released (`lib/packet_mosq.c`, `packet__read`: "FIXME -
/// client case for incoming message received from broker too large"; `lib/handle_publish.c`).
///
///     libmosquitto ──unix socket── relay ──TCP (TLS)── broker
///                                   │
///                     broker → client: checked, 16 KiB at a time
///                     client → broker: passed as they are
///
/// ## Who owns what
///
/// - **The connection's thread** (``MQTTConnection``) makes it: connects to the broker (and TLS),
///   listens on a unix socket in a private directory, lets libmosquitto connect there
///   (`mosquitto_connect` with port 0), ``accept()``s that one connection and removes the path.
/// - **The relay's thread** (``start()``) then owns both sockets and the two buffers: it moves
///   bytes each way, reading from one side only when what it read before has been written to the
///   other, so a side that does not read holds at most one buffer here (and its socket's buffers
///   in the kernel).
/// - ``finish()``, on the connection's thread once libmosquitto's loop has ended, waits for the
///   relay's thread and closes everything.
final class BrokerRelay: @unchecked Sendable {  // one thread at a time, handed over at start() and finish()
    static let bufferLength = 16 * 1024

    private let link: BrokerLink
    private let directory: String
    private var listener: Socket?
    private var client: Socket?
    private var filter: BrokerPacketFilter
    /// Why the relay ended, when the broker's bytes were refused or its connection failed.
    private let ending = Locked<Ending?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Where libmosquitto connects (a unix socket path, with port 0).
    var path: String { "\(directory)/broker" }

    /// Connects to `broker` and listens for libmosquitto.
    /// - Throws: ``MQTTError`` when the broker cannot be reached, or no private socket made.
    init(
        _ broker: HostPort, tls: BrokerTLS?, maximumPacketLength: Int, handshakeSeconds: Int = 10
    ) throws(MQTTError) {
        link = try BrokerLink(broker, tls: tls, seconds: handshakeSeconds)
        filter = BrokerPacketFilter(maximumPacketLength: maximumPacketLength)
        var template = Array("/tmp/water-relay-XXXXXX".utf8CString)  // 0700: only this user connects
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            link.close()
            throw MQTTError("could not make a private directory in /tmp: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        do {
            listener = try Self.listen(at: "\(directory)/broker")
        } catch {
            link.close()
            rmdir(directory)
            throw error
        }
    }

    private static func listen(at path: String) throws(MQTTError) -> Socket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MQTTError("unix socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8.prefix(bytes.count - 1))  // mkdtemp's path fits in 108
        }
        // - 0: bound, listening. -1: errno (EADDRINUSE cannot happen in a new directory).
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 1) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw MQTTError("unix socket \(path): \(reason)")
        }
        return Socket(descriptor: fd)
    }

    /// Takes the connection libmosquitto made (waiting a few seconds at most) and removes the
    /// socket's path, so that nobody else can connect.
    /// - Throws: ``MQTTError`` when libmosquitto's connection did not come.
    func accept() throws(MQTTError) {
        guard let listener else { return }
        defer { closeListener() }
        var poller = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
        // libmosquitto has connected by now (its connect returned), so its connection is queued.
        guard poll(&poller, 1, 5000) == 1, let accepted = try? listener.accept() else {
            throw MQTTError("libmosquitto did not connect to the relay")
        }
        client = accepted
    }

    private func closeListener() {
        guard let listener else { return }
        listener.close()
        self.listener = nil
        unlink(path)
        rmdir(directory)
    }

    /// Moves bytes on a thread of its own until either side ends or the broker's bytes are refused.
    func start() {
        DispatchQueue(label: "water.mqtt.relay", qos: .utility).async {
            self.relay()
            self.finished.signal()
        }
    }

    /// How a relay ended, other than by either side closing.
    enum Ending: Equatable {
        /// The broker sent a packet the filter refuses.
        case refused(BrokerPacketFilter.Refusal)
        /// The broker's connection failed (reset, a TLS error).
        case failed(String)
    }

    /// Ends both sides (the side still open at once, after 2 s for a broker that does not read
    /// what is left for it), waits for the relay's thread and closes everything. Call once, after
    /// libmosquitto's loop has ended.
    func finish() -> Ending? {
        if let client {
            if finished.wait(timeout: .now() + .seconds(2)) == .timedOut {
                shutdown(client.descriptor, Int32(SHUT_RDWR))
                shutdown(link.socket.descriptor, Int32(SHUT_RDWR))
                finished.wait()
            }
            client.close()
        }
        closeListener()
        link.close()
        return ending.withLock { $0 }
    }

    /// The relay's thread: both directions, until one side ends; then libmosquitto reads the end
    /// of its stream.
    private func relay() {
        guard let client else { return }
        var fromBroker = Direction()
        var toBroker = Direction()
        do throws(MQTTError) {
            while true {
                let down = try fromBroker.move(
                    read: { buffer throws(MQTTError) in try link.read(into: buffer) },
                    check: { bytes throws(MQTTError) in
                        do throws(BrokerPacketFilter.Refusal) {
                            try filter.check(bytes)
                        } catch {
                            ending.withLock { $0 = .refused(error) }
                            throw MQTTError(error.description)
                        }
                    },
                    write: { bytes throws(MQTTError) in try BrokerLink.write(bytes, to: client) })
                let up = try toBroker.move(
                    read: { buffer throws(MQTTError) in try BrokerLink.read(from: client, into: buffer) },
                    check: { _ throws(MQTTError) in },
                    write: { bytes throws(MQTTError) in try link.write(bytes) })
                // Either side closed, and what it sent has been passed on.
                if fromBroker.isDone || toBroker.isDone { break }
                if down.moved || up.moved { continue }
                let clientEvents = up.sourceWaits | down.destinationWaits
                let brokerEvents = down.sourceWaits | up.destinationWaits
                var pollers = [
                    pollfd(fd: clientEvents == 0 ? -1 : client.descriptor, events: clientEvents, revents: 0),
                    pollfd(fd: brokerEvents == 0 ? -1 : link.socket.descriptor, events: brokerEvents, revents: 0),
                ]
                _ = poll(&pollers, 2, -1)  // EINTR: round again
            }
        } catch {
            ending.withLock { ending in
                if ending == nil { ending = .failed(error.description) }
            }
        }
        shutdown(client.descriptor, Int32(SHUT_RDWR))
    }
}

/// One direction of a relay: a buffer read from its source and not yet all written to its
/// destination. It reads only when the buffer is empty.
private struct Direction: ~Copyable {
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BrokerRelay.bufferLength, alignment: 1)
    private var start = 0
    private var end = 0
    private var sourceEnded = false

    deinit {
        buffer.deallocate()
    }

    /// The source has closed and everything it sent has been written.
    var isDone: Bool { sourceEnded && start == end }

    /// Reads from the source when the buffer is empty (and `check`s what came), then writes
    /// what is pending: whether anything moved, and the poll events each side waits for.
    /// - Throws: ``MQTTError`` from either side, or from `check`.
    mutating func move(
        read: (UnsafeMutableRawBufferPointer) throws(MQTTError) -> BrokerLink.Transfer,
        check: (UnsafeRawBufferPointer) throws(MQTTError) -> Void,
        write: (UnsafeRawBufferPointer) throws(MQTTError) -> BrokerLink.Transfer
    ) throws(MQTTError) -> (moved: Bool, sourceWaits: Int16, destinationWaits: Int16) {
        var moved = false
        var sourceWaits: Int16 = 0
        if start == end, !sourceEnded {
            switch try read(buffer) {
            case .bytes(let count):
                (start, end) = (0, count)
                try check(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                moved = true
            case .wait(let events): sourceWaits = events
            case .end: sourceEnded = true
            }
        }
        guard start < end else { return (moved, sourceWaits, 0) }
        switch try write(UnsafeRawBufferPointer(rebasing: buffer[start..<end])) {
        case .bytes(let count):
            start += count
            return (true, sourceWaits, 0)
        case .wait(let events): return (moved, sourceWaits, events)
        case .end: throw MQTTError("the other side closed")
        }
    }
}
