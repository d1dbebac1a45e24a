/// What a request asks the wall for, from its method and path alone (no I/O): the whole of
/// the wall's routing, tested without a server.
enum WallRoute: Equatable, Sendable {
    /// The board page of the link `token`.
    case page(token: String)
    /// The live stream (Server-Sent Events) of the link `token`.
    case events(token: String)
    /// The page's script and style: no household data, served to anyone.
    case script
    case style
    /// The server's figures (Prometheus text), to a peer on loopback only.
    case metrics
    /// What a browser asks for by itself: 404, not counted as a guess.
    case favicon
    /// Nothing else is served.
    case notFound
    /// Anything but GET (and HEAD, which MHD answers as GET without the body).
    case methodNotAllowed

    /// A link's token in a path: base64url, as ``WallLinks`` makes them (43 characters).
    static let tokenLength = 43

    init(method: String, path: String) {
        guard method == "GET" || method == "HEAD" else {
            self = .methodNotAllowed
            return
        }
        switch path {
        case "/wall.js": self = .script
        case "/wall.css": self = .style
        case "/metrics": self = .metrics
        case "/favicon.ico": self = .favicon
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 3, parts[0].isEmpty, parts[1] == "wall", Self.isToken(parts[2]) else {
                self = .notFound
                return
            }
            let token = String(parts[2])
            switch parts.count {
            case 3: self = .page(token: token)
            case 4 where parts[3] == "events": self = .events(token: token)
            default: self = .notFound
            }
        }
    }

    private static func isToken(_ text: Substring) -> Bool {
        text.utf8.count == tokenLength
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }
}
