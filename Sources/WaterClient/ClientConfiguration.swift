import WaterProtocol
import WaterTransport

/// Where the client connects and how it identifies itself.
public struct ClientConfiguration: Sendable {
    /// The environment variable that names the server when `--server` is not given.
    public static let serverEnvironmentVariable = "WATER_SERVER"

    public var server: HostPort
    /// Sent in the handshake, for the server's log.
    public var clientName = "water-client"
    public var maximumPayloadLength = WireProtocol.defaultMaximumPayloadLength
    /// How long to wait for a reply before giving up.
    public var replyTimeoutMilliseconds = 30_000

    public init(server: HostPort) {
        self.server = server
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
