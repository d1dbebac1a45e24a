import CLinux
import Glibc
import WaterSystem

/// A TCP socket descriptor and the calls made on it. It does not close itself: whoever
/// creates it owns it (``close()``).
public struct Socket: Hashable, Sendable {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A listening socket bound to `address` (port 0 picks a free one), non-blocking.
    public static func listen(on address: HostPort, backlog: Int32 = 512) throws(SocketError) -> Socket {
        let resolved = try SocketAddress.resolve(address, passive: true)
        let fd = try socketCall("socket") {
            Glibc.socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let socket = Socket(descriptor: fd)
        do throws(SocketError) {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1)
            try socketCall("bind \(address)") { resolved.withSockaddr { bind(fd, $0, $1) } }
            try socketCall("listen") { Glibc.listen(fd, backlog) }
            try socket.setNonBlocking()
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// A socket connected to `address`, blocking (for clients).
    public static func connect(to address: HostPort) throws(SocketError) -> Socket {
        let resolved = try SocketAddress.resolve(address)
        let fd = try socketCall("socket") {
            Glibc.socket(resolved.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        let socket = Socket(descriptor: fd)
        do throws(SocketError) {
            try socketCall("connect to \(address)") { resolved.withSockaddr { Glibc.connect(fd, $0, $1) } }
            try socket.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// The next pending connection, non-blocking, or nil when there is none (EAGAIN).
    public func accept() throws(SocketError) -> Socket? {
        let fd = CLinux_accept_nonblocking(descriptor)
        if fd >= 0 {
            let accepted = Socket(descriptor: fd)
            try? accepted.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return accepted
        }
        switch errno {
        case EAGAIN, EINTR, ECONNABORTED: return nil
        default: throw SocketError(operation: "accept", errno: errno)
        }
    }

    /// Reads what is available into `buffer`: the byte count, 0 at end of stream, or nil when
    /// nothing is available yet (EAGAIN).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int? {
        let (count, error) = retryingInterrupts { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        if count >= 0 { return count }
        guard error == EAGAIN else { throw SocketError(operation: "read", errno: error) }
        return nil
    }

    /// Writes what the socket takes now: the byte count, 0 when it takes nothing (EAGAIN).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> Int {
        let (count, error) = retryingInterrupts {
            Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
        if count >= 0 { return count }
        guard error == EAGAIN else { throw SocketError(operation: "write", errno: error) }
        return 0
    }

    public func setNonBlocking() throws(SocketError) {
        let flags = try socketCall("fcntl") { fcntl(descriptor, F_GETFL) }
        try socketCall("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    public func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws(SocketError) {
        var value = value
        try socketCall("setsockopt") {
            setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Sets a receive timeout for a blocking socket (clients).
    public func setReceiveTimeout(milliseconds: Int) throws(SocketError) {
        var time = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        try socketCall("setsockopt") {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    public var localAddress: HostPort? { SocketAddress.of(descriptor, peer: false)?.hostPort }
    public var peerAddress: HostPort? { SocketAddress.of(descriptor, peer: true)?.hostPort }

    public func close() {
        Glibc.close(descriptor)
    }
}
