import COpenSSL
import Glibc
import WaterTransport

/// The server's byte stream to the broker: TCP, with TLS over it for `--mqtt-tls`
/// (``BrokerTLS``). Non-blocking once open; used by one thread at a time (``BrokerRelay``'s).
///
/// - Important: ``close()`` it once, after the last read or write.
final class BrokerLink {
    /// What a read or a write did.
    enum Transfer: Equatable {
        /// This many bytes (more than 0).
        case bytes(Int)
        /// Nothing now: call again once the socket has these poll events (TLS may need to
        /// write to read, or read to write).
        case wait(events: Int16)
        /// The broker closed the stream.
        case end
    }

    let socket: Socket
    /// The TLS session (`SSL *`), or nil for plain TCP.
    private let tls: OpaquePointer?

    /// Connects to `broker` (each address it resolves to, in turn), then shakes hands over TLS
    /// when `tls` is given, for at most `seconds`. Blocks the calling thread.
    /// - Throws: ``MQTTError`` saying why: the name, the connection, the certificate.
    init(_ broker: HostPort, tls context: BrokerTLS?, seconds: Int) throws(MQTTError) {
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.resolveAll(broker)
        } catch {
            throw MQTTError(error.description)
        }
        var socket: Socket?
        var failure = ""
        for address in addresses where socket == nil {
            do {
                socket = try Socket.connect(to: address.hostPort)
            } catch {
                failure = error.description
            }
        }
        guard let socket else { throw MQTTError(failure) }
        do {
            try socket.setNonBlocking()
        } catch {
            socket.close()
            throw MQTTError(error.description)
        }
        self.socket = socket
        guard let context else {
            tls = nil
            return
        }
        do {
            tls = try context.session(on: socket.descriptor, host: broker.host)
        } catch {
            socket.close()
            throw error
        }
        do {
            try handshake(seconds: seconds)
        } catch {
            close()
            throw error
        }
    }

    private func handshake(seconds: Int) throws(MQTTError) {
        guard let tls else { return }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            // 1: done; otherwise SSL_get_error says whether it waits for the socket or failed.
            let result = SSL_connect(tls)
            if result == 1 { return }
            let events: Int16
            switch SSL_get_error(tls, result) {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default: throw MQTTError("TLS handshake: \(BrokerTLS.lastError(tls))")
            }
            let milliseconds = Int32(max((deadline - ContinuousClock.now) / .milliseconds(1), 0))
            var poller = pollfd(fd: socket.descriptor, events: events, revents: 0)
            guard milliseconds > 0, poll(&poller, 1, milliseconds) != 0 else {
                throw MQTTError("TLS handshake: the broker did not finish it in \(seconds) s")
            }
        }
    }

    /// Reads what is there into `buffer`.
    /// - Throws: ``MQTTError`` when the connection failed (reset, a TLS error).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(MQTTError) -> Transfer {
        guard let tls else { return try Self.read(from: socket, into: buffer) }
        var count = 0
        errno = 0
        let result = SSL_read_ex(tls, buffer.baseAddress, buffer.count, &count)
        return try transfer(result, count, "read")
    }

    /// Writes what the socket takes now of `bytes` (not empty).
    /// - Throws: ``MQTTError`` when the connection failed.
    func write(_ bytes: UnsafeRawBufferPointer) throws(MQTTError) -> Transfer {
        guard let tls else { return try Self.write(bytes, to: socket) }
        var count = 0
        errno = 0
        let result = SSL_write_ex(tls, bytes.baseAddress, bytes.count, &count)
        return try transfer(result, count, "write")
    }

    /// Reads what `socket` (non-blocking) has into `buffer`.
    static func read(from socket: Socket, into buffer: UnsafeMutableRawBufferPointer) throws(MQTTError) -> Transfer {
        do {
            guard let count = try socket.read(into: buffer) else { return .wait(events: Int16(POLLIN)) }
            return count == 0 ? .end : .bytes(count)
        } catch {
            throw MQTTError(error.description)
        }
    }

    /// Writes what `socket` (non-blocking) takes now of `bytes`.
    static func write(_ bytes: UnsafeRawBufferPointer, to socket: Socket) throws(MQTTError) -> Transfer {
        do {
            let count = try socket.write(bytes)
            return count == 0 ? .wait(events: Int16(POLLOUT)) : .bytes(count)
        } catch {
            throw MQTTError(error.description)
        }
    }

    /// SSL_read_ex's or SSL_write_ex's result (1: `count` bytes) as a ``Transfer``.
    private func transfer(_ result: Int32, _ count: Int, _ operation: String) throws(MQTTError) -> Transfer {
        guard let tls, result != 1 else { return .bytes(count) }
        let error = SSL_get_error(tls, result)
        switch error {
        case SSL_ERROR_WANT_READ: return .wait(events: Int16(POLLIN))
        case SSL_ERROR_WANT_WRITE: return .wait(events: Int16(POLLOUT))
        case SSL_ERROR_ZERO_RETURN: return .end  // the broker's close_notify
        case SSL_ERROR_SYSCALL where errno == 0: return .end  // closed without a close_notify
        case SSL_ERROR_SYSCALL: throw MQTTError("TLS \(operation): \(String(cString: strerror(errno)))")
        default:
            throw MQTTError("TLS \(operation): \(BrokerTLS.lastError())")
        }
    }

    /// Ends TLS (a close_notify, not waited for) and closes the socket.
    func close() {
        if let tls {
            _ = SSL_shutdown(tls)  // 0 or 1: sent; < 0: the socket is gone already
            _ = BrokerTLS.lastError()  // clears what a failed shutdown left
            SSL_free(tls)
        }
        socket.close()
    }
}
