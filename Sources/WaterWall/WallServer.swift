import CWaterWall
import Glibc
import WaterLog
import WaterServer
import WaterSync

/// The kitchen wall (`serve --wall`): the week's board as a web page, over HTTPS with the
/// server's own certificate (plaintext on loopback only), on a port of its own.
///
/// ## Who owns what
/// - **libmicrohttpd's threads** own the listening socket and every page connection: an
///   internal polling thread accepts, a thread per connection reads its request, calls
///   ``answer(_:method:path:)`` and writes. A live stream's thread waits in ``WallHub`` for the
///   next board. None of them ever runs on, or waits for, the server's event loop.
/// - **``hub``** keeps the board current from the server's durable change notifier.
/// - **``daemon``** (its lock): the MHD handle, from ``init`` until ``stop()`` stops it.
/// - **``admission``** counts the open connections and shuts down those without a link in time.
public final class WallServer: BoardPublisher {
    private let settings: WallSettings
    private let feed: BoardFeed
    private let hub: WallHub
    private let logger: Logger
    private let daemon: Locked<OpaquePointer?>
    private let counters = WallCounters()
    private let admission: WallAdmission
    /// `--metrics-token-file`'s token; nil: `/metrics` is for loopback peers only.
    private let metricsToken: [UInt8]?
    /// The wall's address with its port (the one chosen when 0 was asked for).
    public let address: String
    public let statusChanged = Signal()

    /// What the server's configuration takes to serve the wall (``ServerConfiguration/boardPublishers``).
    /// `made` is told the wall once it listens (`serve` prints its address).
    public static func maker(_ settings: WallSettings, made: @escaping @Sendable (WallServer) -> Void = { _ in })
        -> BoardPublisherMaker
    {
        { feed, logger in
            let wall = try WallServer(settings: settings, feed: feed, logger: logger)
            made(wall)
            return wall
        }
    }

    /// Reads the certificate and starts listening at once, so that a port in use fails the
    /// server's start; pages are served from then on.
    /// - Throws: ``WallError`` when the certificate cannot be read or the address not bound.
    init(settings: WallSettings, feed: BoardFeed, logger: Logger) throws(WallError) {
        self.settings = settings
        self.feed = feed
        self.logger = logger
        hub = WallHub(feed: feed)
        daemon = Locked(nil)
        if let file = settings.metricsTokenFile {
            let line = Self.readFile(file)?.split(separator: "\n", omittingEmptySubsequences: false).first
            guard let line, line.utf8.count >= 16, !line.contains(where: \.isWhitespace) else {
                throw WallError(
                    reason: "--metrics-token-file \(file): cannot read it, or its first line is not a token "
                        + "(16 characters or more, no spaces)")
            }
            metricsToken = Array(line.utf8)
        } else {
            metricsToken = nil
        }
        admission = WallAdmission(
            limits: WallAdmission.Limits(
                connections: settings.maximumConnections, perAddress: settings.maximumConnectionsPerAddress,
                untrustedNanoseconds: UInt64(WallSettings.untrustedSeconds) * 1_000_000_000))
        var pem: (certificate: String, key: String)?
        if let tls = settings.tls {
            guard let certificate = Self.readFile(tls.certificate), let key = Self.readFile(tls.key) else {
                throw WallError(reason: "cannot read the certificate \(tls.certificate) or its key")
            }
            pem = (certificate, key)
        }
        // MHD's own caps are a backstop above ``admission``'s, which refuses (and counts) first.
        let limits = water_wall_limits(
            connections: UInt32(settings.maximumConnections + 4),
            connections_per_address: UInt32(settings.maximumConnectionsPerAddress + 2),
            request_memory: WallSettings.requestMemoryBytes,
            idle_timeout_seconds: UInt32(WallSettings.idleTimeoutSeconds))
        var failure: UnsafePointer<CChar>?
        let started = water_wall_start(
            settings.listen.host, settings.listen.port, pem?.certificate, pem?.key, limits, Self.acceptPolicy,
            Self.notify, Self.handler, nil, &failure)
        guard let started else {
            throw WallError(reason: failure.map { String(cString: $0) } ?? "cannot start")
        }
        daemon.withLock { $0 = started }
        var bound = settings.listen
        bound.port = water_wall_port(started)
        address = "\(pem == nil ? "http" : "https")://\(bound)"
        feed.wallListening(scheme: pem == nil ? "http" : "https", port: bound.port)
        WallContext.shared.register(self)
    }

    public var statusLine: String? { "wall \(address)" }

    public func start() {
        hub.start()
        admission.start()
        logger.info("wall listening", ["address": address])
    }

    /// Ends every live stream and stops MHD (which waits for its threads); nothing is served
    /// after it returns.
    public func stop() {
        hub.stop()
        let running = daemon.withLock { daemon in
            defer { daemon = nil }
            return daemon
        }
        if let running { MHD_stop_daemon(running) }
        admission.stop()
        WallContext.shared.unregister(self)
    }

    /// What one request gets, counted by its status for `/metrics`. `authorization`: its
    /// `Authorization` header, if any.
    func answer(_ route: WallRoute, peer: String, authorization: String?) -> WallResponse {
        let response = decide(route, peer: peer, authorization: authorization)
        counters.answered(response.status)
        return response
    }

    /// What one request gets: a decision from its route and the link's check.
    private func decide(_ route: WallRoute, peer: String, authorization: String?) -> WallResponse {
        switch route {
        case .metrics:
            guard mayReadMetrics(peer: peer, authorization: authorization) else { return missed(peer) }
            var text = feed.metrics()
            counters.add(to: &text)
            admission.add(to: &text)
            return .asset(text.text, type: "text/plain; version=0.0.4; charset=utf-8")
        case .methodNotAllowed: return .refused(405)
        case .favicon: return .refused(404)
        case .notFound: return missed(peer)
        case .script: return .asset(WallAssets.script, type: "text/javascript; charset=utf-8")
        case .style: return .asset(WallAssets.style, type: "text/css; charset=utf-8")
        case .page(let token), .events(let token):
            switch feed.admitsWallLink(token, from: peer) {
            case .refused: return .refused(404)
            case .throttled: return .refused(429)
            case .admitted:
                if case .events = route { return .events(token: token) }
                return .page(WallPage.document(hub.currentBoard()))
            }
        }
    }

    /// A 404, counted against `peer` as a wrong link is (429 once it must wait).
    private func missed(_ peer: String) -> WallResponse {
        feed.wallMiss(from: peer) == .throttled ? .refused(429) : .refused(404)
    }

    /// With a token (`--metrics-token-file`), whoever shows it, loopback included: behind a
    /// reverse proxy on the same host every peer is loopback. Without one, loopback peers only
    /// (the Pi's own Prometheus, or an ssh tunnel).
    private func mayReadMetrics(peer: String, authorization: String?) -> Bool {
        guard let metricsToken else { return Self.isLoopback(peer) }
        guard let authorization, authorization.hasPrefix("Bearer ") else { return false }
        return Self.constantTimeEqual(Array(authorization.utf8.dropFirst("Bearer ".utf8.count)), metricsToken)
    }

    /// Whether `given` is `expected`, in a time that depends on their lengths only.
    static func constantTimeEqual(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : ~expected[index])
        }
        return difference == 0
    }

    fileprivate func stream(token: String, on connection: OpaquePointer) -> WallStream {
        let peer = SendableConnection(pointer: connection)
        return WallStream(
            counters: counters, hub: hub, stillOpen: { [feed] in feed.isWallLinkOpen(token) },
            peerGone: { water_wall_peer_gone(peer.pointer) != 0 })
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 1 << 20 { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// MHD's request callback, on the connection's thread: answers at the first call (the
    /// headers), so no request body is ever read, and so every answer closes its connection
    /// (MHD closes one answered that early; the answer says `Connection: close`). A connection
    /// whose request carried a valid link is trusted: its stream is never shut down as slow.
    private static let handler: MHD_AccessHandlerCallback = { _, connection, url, method, _, _, _, _ in
        guard let connection, let url, let method, let wall = WallContext.shared.current else { return .NO }
        var peer = [CChar](repeating: 0, count: 64)
        water_wall_peer(connection, &peer, peer.count)
        let route = WallRoute(method: String(cString: method), path: String(cString: url))
        let authorization = MHD_lookup_connection_value(connection, .HEADER_KIND, "Authorization").map {
            String(cString: $0)
        }
        let response = wall.answer(route, peer: text(peer), authorization: authorization)
        let key = UInt(bitPattern: connection)
        switch response {
        case .page, .events: wall.admission.trusted(key)
        default: break
        }
        return response.queue(on: connection, wall: wall)
    }

    /// MHD's accept policy, on its accepting thread: the wall's own caps (``WallAdmission``).
    private static let acceptPolicy: MHD_AcceptPolicyCallback = { _, address, _ in
        guard let wall = WallContext.shared.current else { return .NO }
        var peer = [CChar](repeating: 0, count: 64)
        water_wall_address(address, &peer, peer.count)
        return wall.admission.mayAccept(from: text(peer)) ? .YES : .NO
    }

    /// A connection started (on the accepting thread, right after the policy took it) or closed.
    private static let notify: MHD_NotifyConnectionCallback = { _, connection, _, code in
        guard let connection, let wall = WallContext.shared.current else { return }
        let key = UInt(bitPattern: connection)
        if water_wall_is_start(code) != 0 {
            var peer = [CChar](repeating: 0, count: 64)
            water_wall_peer(connection, &peer, peer.count)
            wall.admission.started(key, from: text(peer), descriptor: water_wall_descriptor(connection))
        } else {
            wall.admission.closed(key)
        }
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An MHD connection, asked about only on its own thread while MHD keeps it (a stream's reads).
private struct SendableConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Why the wall could not start.
public struct WallError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { "the wall (--wall): \(reason)" }
}

/// The wall a callback from MHD belongs to: one per process (`serve` runs one server).
/// MHD's context pointer points at this, never at a wall that may be gone.
final class WallContext: Sendable {
    static let shared = WallContext()
    private let wall = Locked<WallServer?>(nil)

    var current: WallServer? { wall.withLock { $0 } }

    func register(_ server: WallServer) { wall.withLock { $0 = server } }

    func unregister(_ server: WallServer) {
        wall.withLock { if $0 === server { $0 = nil } }
    }
}

extension WallResponse {
    fileprivate func queue(on connection: OpaquePointer, wall: WallServer) -> MHD_Result {
        switch self {
        case .events(let token):
            let stream = wall.stream(token: token, on: connection)
            let response = MHD_create_response_from_callback(
                UInt64.max, 4096, WallStream.reader, Unmanaged.passRetained(stream).toOpaque(), WallStream.release)
            return WallHeaders.send(response, status: 200, type: "text/event-stream", close: false, on: connection)
        default:
            var bytes = Array(body.utf8)
            let response = bytes.withUnsafeMutableBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, buffer.baseAddress, .RESPMEM_MUST_COPY)
            }
            return WallHeaders.send(response, status: status, type: contentType, close: true, on: connection)
        }
    }
}
