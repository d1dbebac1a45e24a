import Glibc

extension HostPort {
    /// The numeric address to use for `self` where only this machine may be reached (plaintext,
    /// which carries passwords and tokens in the clear): every address the host resolves to must
    /// be loopback (127.0.0.0/8, ::1, or ::ffff:127.x.y.z), and the first of them is returned, so
    /// that the name is not looked up again between the check and the connect or bind. The
    /// name is never trusted: `localhost` or `127.example` can resolve anywhere.
    /// - Throws: ``NotLoopback`` naming what it resolves to, or ``SocketError`` when it does
    ///   not resolve.
    public func loopbackAddress() throws -> HostPort {
        try loopbackAddress(among: SocketAddress.resolveAll(self))
    }

    /// The first of `addresses` (what `self` resolved to) when all of them are loopback.
    func loopbackAddress(among addresses: [SocketAddress]) throws(NotLoopback) -> HostPort {
        guard let first = addresses.first, addresses.allSatisfy(\.isLoopback) else {
            throw NotLoopback(address: self, resolved: addresses.map(\.hostPort))
        }
        return first.hostPort
    }
}

/// An address asked for on loopback only that resolves (also) to one other machines reach.
public struct NotLoopback: Error, CustomStringConvertible {
    public let address: HostPort
    public let resolved: [HostPort]

    public init(address: HostPort, resolved: [HostPort]) {
        self.address = address
        self.resolved = resolved
    }

    public var description: String {
        let hosts = resolved.map(\.host)
        return hosts == [address.host]
            ? "\(address) is not a loopback address (127.0.0.1, ::1)"
            : "\(address) resolves to \(hosts.joined(separator: ", ")), not only to loopback addresses (127.0.0.1, ::1)"
    }
}

extension SocketAddress {
    /// Whether the address is this machine's loopback: 127.0.0.0/8, ::1, or an IPv4-mapped
    /// IPv6 address in 127.0.0.0/8.
    public var isLoopback: Bool {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                // sockaddr_in: family (2), port (2), then the address, network order.
                return raw[4] == 127
            case AF_INET6:
                // sockaddr_in6: family (2), port (2), flow info (4), then the 16-byte address.
                let address = Array(raw[8..<24])
                let mapped = address[0..<10].allSatisfy { $0 == 0 } && address[10] == 0xFF && address[11] == 0xFF
                return address == [UInt8](repeating: 0, count: 15) + [1] || (mapped && address[12] == 127)
            default:
                return false
            }
        }
    }
}
