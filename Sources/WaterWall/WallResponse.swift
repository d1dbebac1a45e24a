import CWaterWall

/// What the wall answers one request with (no I/O: ``WallServer/answer(_:peer:authorization:)`` decides it).
enum WallResponse: Equatable, Sendable {
    case page(String)
    case asset(String, type: String)
    /// The live stream of the link `token`.
    case events(token: String)
    /// 404 (no such page, or no valid link: nothing about the household), 405 (not GET),
    /// 429 (too many wrong links from this address).
    case refused(UInt32)

    var status: UInt32 {
        if case .refused(let status) = self { return status }
        return 200
    }

    var body: String {
        switch self {
        case .page(let html): return html
        case .asset(let text, _): return text
        case .events: return ""
        case .refused(404): return "not found\n"
        case .refused(405): return "only GET\n"
        case .refused(429): return "too many wrong links from this address; wait\n"
        case .refused: return "refused\n"
        }
    }

    var contentType: String {
        switch self {
        case .page: return "text/html; charset=utf-8"
        case .asset(_, let type): return type
        case .events: return "text/event-stream"
        case .refused: return "text/plain; charset=utf-8"
        }
    }
}

/// The headers of every answer: the page may run its own script and style and nothing else,
/// is never framed, sends no referrer (the link is in its address) and sets no cookie.
enum WallHeaders {
    static let all: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-store"),
    ]

    /// Queues `response` with the headers, then lets it go (MHD keeps its own reference).
    /// `close`: the connection ends after it (every answer but a live stream's: none keeps a slot).
    static func send(
        _ response: OpaquePointer?, status: UInt32, type: String, close: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", type)
        if close { MHD_add_response_header(response, "Connection", "close") }
        for (name, value) in all { MHD_add_response_header(response, name, value) }
        if status == 405 { MHD_add_response_header(response, "Allow", "GET, HEAD") }
        if status == 429 { MHD_add_response_header(response, "Retry-After", "60") }
        return MHD_queue_response(connection, status, response)
    }
}
