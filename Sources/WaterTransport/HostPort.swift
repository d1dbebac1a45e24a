/// A `HOST:PORT` pair as people type it: `127.0.0.1:7420`, `[::1]:7420`, `pi.local:7420`,
/// or a bare host, which takes the default port.
public struct HostPort: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `text`, or returns nil when it is not a host with an optional port in 0-65535.
    public init?(parsing text: String, defaultPort: UInt16) {
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            // [IPv6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else { return nil }  // bare IPv6 needs brackets
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { return nil }
        if let portText {
            guard let port = UInt16(portText) else { return nil }
            self.init(host: String(host), port: port)
        } else {
            self.init(host: String(host), port: defaultPort)
        }
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
