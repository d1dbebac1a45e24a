import WaterProtocol
import WaterTLS
import WaterTransport

/// Where the client connects and how it identifies itself.
public struct ClientConfiguration: Sendable {
    /// The environment variable that names the server when `--server` is not given.
    public static let serverEnvironmentVariable = "WATER_SERVER"

    public var server: HostPort
    /// Sent in the handshake, for the server's log.
    public var clientName = "WaterClient \(WireProtocol.softwareVersion)"
    public var maximumPayloadLength = WireProtocol.defaultMaximumPayloadLength
    /// How long to wait for a reply before giving up.
    public var replyTimeoutMilliseconds = 30_000
    /// How the server is trusted.
    public var security = Security.pinned(nil)
    /// Where a pinned fingerprint came from, for the refusal when the server presents another.
    public var pinOrigin = PinOrigin.saved

    /// Where a pinned fingerprint came from.
    public enum PinOrigin: Sendable, Equatable {
        /// This computer's, kept since the first login.
        case saved
        /// Typed for this run (`--fingerprint`).
        case given
    }
    /// A TLS session saved from an earlier connection to the same server, offered for
    /// resumption (``WaterConnection/savedTLSSession``).
    public var tlsSessionToResume: [UInt8]?

    /// How the client knows it talks to the household's server.
    public enum Security: Sendable, Equatable {
        /// TLS 1.3 with the server's own (self-signed) certificate, known by its fingerprint.
        /// With nil, nothing is pinned yet: the connection completes and reports the
        /// fingerprint it saw (``WaterConnection/serverFingerprint``) for the caller to confirm
        /// before it sends anything secret.
        case pinned(Fingerprint?)
        /// TLS 1.3 with a certificate that the system's CAs vouch for, for the host name.
        case certificateAuthorities
        /// No TLS at all: insecure, for a server on this machine (tests, benchmarks).
        case plaintext
    }

    public init(server: HostPort, security: Security = .pinned(nil)) {
        self.server = server
        self.security = security
    }

    /// The server to use: `--server` first, then `WATER_SERVER`, then the one the saved
    /// session was made with, then 127.0.0.1:7420.
    /// - Returns: nil when the chosen text is not a valid `HOST:PORT`.
    public static func resolveServer(option: String?, environment: [String: String], saved: String? = nil) -> HostPort?
    {
        let text = option ?? environment[serverEnvironmentVariable] ?? saved ?? "127.0.0.1"
        return HostPort(parsing: text, defaultPort: WireProtocol.defaultPort)
    }
}
