import Glibc
import WaterProtocol
import WaterSync
import WaterTransport

/// A raw TCP connection to `server` from the loopback address `source` (127.0.0.2 is a second
/// device on the same machine: the server keys its limits by the peer's address), with a
/// receive timeout of `timeoutSeconds`. The caller closes it.
func connect(from source: String, to server: HostPort, timeoutSeconds: Int = 5) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SocketError(operation: "socket", errno: errno) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
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
    guard bound == 0, connected == 0 else {
        let error = SocketError(operation: "connect", errno: errno)
        close(fd)
        throw error
    }
    return fd
}

/// The first reply the server sends on `fd` (a refusal comes unasked), or nil when it closes or
/// says nothing within the receive timeout.
func firstReply(_ fd: Int32) throws -> WaterV1.ResponseEnvelope? {
    var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        decoder.append(buffer[0..<count])
        if let frame = try decoder.nextFrame() { return try WaterV1.ResponseEnvelope(serializedBytes: frame.payload) }
    }
}

/// How a connection the test sent nothing on ended, read until then (bounded by its receive
/// timeout): the server closed it (end of stream or a reset), or it was still open when the
/// timeout passed.
enum Ending: Equatable {
    case closed
    case stillOpen
}

func ending(of fd: Int32) -> Ending {
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<1000 {  // a refusal is one frame; more than this is not one
        let count = read(fd, &buffer, buffer.count)
        if count == 0 { return .closed }
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? .stillOpen : .closed }
    }
    return .stillOpen
}

/// Whether the server has closed `fd`, asked without waiting: what it sent is read and dropped
/// (TLS session tickets, a refusal's status would otherwise hide the end of stream behind them).
func isClosedByServer(_ fd: Int32) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 4096)
    for _ in 0..<1000 {
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count == 0 { return true }
        if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
    }
    return false
}

/// An attacker keeping its connections topped up: until `stop` is set (or a bounded number of
/// rounds), each of `peers` whose connection (`fd`) the server closed is closed here too and
/// opened again with `reopen`, counted in `reopened`; a peer that cannot reconnect is dropped.
/// The caller closes what is left.
func keepReopening<Peer>(
    _ peers: inout [Peer], fd: WritableKeyPath<Peer, Int32>, until stop: Locked<Bool>, reopened: Locked<Int>,
    reopen: (Peer) -> Int32?
) {
    for _ in 0..<1_000_000 where !stop.withLock({ $0 }) {
        var any = false
        for index in peers.indices where isClosedByServer(peers[index][keyPath: fd]) {
            close(peers[index][keyPath: fd])
            peers[index][keyPath: fd] = reopen(peers[index]) ?? -1
            reopened.withLock { $0 += 1 }
            any = true
        }
        peers.removeAll { $0[keyPath: fd] < 0 }
        if !any { usleep(1000) }
    }
}
