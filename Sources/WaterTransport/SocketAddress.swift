import Glibc

/// An IPv4 or IPv6 socket address, resolved from a ``HostPort``.
public struct SocketAddress: Sendable {
    var storage: sockaddr_storage
    var length: socklen_t

    public var family: Int32 { Int32(storage.ss_family) }

    /// Resolves `hostPort` (numeric or a name) to its first address.
    public static func resolve(_ hostPort: HostPort, passive: Bool = false) throws(SocketError) -> SocketAddress {
        try resolveAll(hostPort, passive: passive)[0]
    }

    /// Every address `hostPort` resolves to (TCP), in the resolver's order; never empty.
    public static func resolveAll(_ hostPort: HostPort, passive: Bool = false) throws(SocketError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(hostPort.host, String(hostPort.port), &hints, &result)
        guard status == 0, result != nil else {
            throw SocketError(operation: "resolve \(hostPort): \(String(cString: gai_strerror(status)))", errno: 0)
        }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var next = result
        while let info = next {
            var address = SocketAddress(storage: sockaddr_storage(), length: info.pointee.ai_addrlen)
            withUnsafeMutableBytes(of: &address.storage) { buffer in
                buffer.copyMemory(
                    from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            }
            addresses.append(address)
            next = info.pointee.ai_next
        }
        return addresses
    }

    /// The address as `HOST:PORT` (IPv6 in brackets).
    public var hostPort: HostPort {
        var storage = self.storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                    NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard status == 0 else { return HostPort(host: "?", port: 0) }
        let text = { (chars: [CChar]) in
            String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return HostPort(host: text(host), port: UInt16(text(service)) ?? 0)
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    /// The local or remote address of a socket.
    static func of(_ fd: Int32, peer: Bool) -> SocketAddress? {
        var address = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let status = withUnsafeMutablePointer(to: &address.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &address.length) : getsockname(fd, $0, &address.length)
            }
        }
        return status == 0 ? address : nil
    }
}
