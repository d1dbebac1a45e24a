import WaterServer
import WaterTransport

/// Where and how `serve --wall` serves the kitchen wall, and its bounds (README, "The kitchen
/// wall"). The wall has a port of its own, apart from the protocol's: the browser's connections
/// never count against the protocol's admission limits, and the API's port speaks nothing but
/// `water/1`.
public struct WallSettings: Sendable, Equatable {
    public static let defaultPort: UInt16 = 7421
    /// Open page connections in all (pages, scripts and live streams alike).
    public static let defaultMaximumConnections = 32
    /// Open page connections from one address: a tablet and a phone or two.
    public static let defaultMaximumConnectionsPerAddress = 8
    /// The request line and headers of one request, at most (MHD answers 431 or 414 past it).
    public static let requestMemoryBytes = 8192
    /// A connection that sends or takes nothing this long is closed; a live stream sends a
    /// comment every ``keepAliveSeconds``, so only a reader that stopped reading reaches it.
    public static let idleTimeoutSeconds = 60
    public static let keepAliveSeconds = 15
    /// A connection that has not carried a valid link by then is closed (its TLS handshake,
    /// request line and headers, and answer must all fit): a peer without a link cannot hold
    /// one of the slots by trickling its headers (``WallAdmission``).
    public static let untrustedSeconds = 5

    public var listen: HostPort
    /// The certificate and key the protocol serves with; nil for plaintext, which the command
    /// line allows on a loopback address only (as `--plaintext` for the protocol).
    public var tls: ServerTLSFiles?
    public var maximumConnections = defaultMaximumConnections
    public var maximumConnectionsPerAddress = defaultMaximumConnectionsPerAddress
    /// `--metrics-token-file`: a file whose first line is the bearer token `/metrics` asks of
    /// every peer, loopback included; nil: `/metrics` answers loopback peers only.
    public var metricsTokenFile: String?

    public init(listen: HostPort, tls: ServerTLSFiles?) {
        self.listen = listen
        self.tls = tls
    }
}
