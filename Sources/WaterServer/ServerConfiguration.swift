import WaterCore
import WaterProtocol
import WaterTransport
import WaterZoneInfo

/// Everything `water-server serve` can be told, with the defaults a household needs.
public struct ServerConfiguration: Sendable {
    /// Where to listen. Port 0 picks a free port (tests read it back from the log line).
    public var listen = HostPort(host: "127.0.0.1", port: WireProtocol.defaultPort)
    /// The data directory: one archive per member, the accounts, the lock file.
    public var dataDirectory: String
    /// Connections served at once; more are accepted and closed with RESOURCE_EXHAUSTED.
    public var maximumConnections = 256
    /// Connections served at once from one address (one device): a device on the LAN that
    /// opens hundreds cannot take the slots everyone else needs. More get RESOURCE_EXHAUSTED.
    public var maximumConnectionsPerAddress = 32
    /// How long a new connection may take to send its handshake before it is closed.
    public var handshakeDeadline: Duration = .seconds(10)
    /// Calls in flight per connection; more fail with RESOURCE_EXHAUSTED.
    public var maximumCallsInFlight = 32
    /// The largest frame payload, on the wire and inflated.
    public var maximumPayloadLength = WireProtocol.defaultMaximumPayloadLength
    /// How long a peer may take to deliver a frame it has started.
    public var frameDeadline: Duration = .seconds(10)
    /// How long a connection may stay silent with no call in flight before it is closed.
    public var idleTimeout: Duration = .seconds(300)
    /// The household's time zone: its calendar week, and new members' days.
    public var householdTimeZone = MemberTimeZone.utc
    /// Where members' zones are found (the system's zoneinfo).
    public var timeZones: any TimeZoneSource = ZoneInfo.system
    /// How hard password hashes are (argon2id either way).
    public var passwordStrength = PasswordHasher.Strength.interactive
    /// How many password hashes may run at once (each takes 64 MiB at interactive strength).
    public var concurrentPasswordHashes = 2
    /// Password checks waiting or running from one address; more get RESOURCE_EXHAUSTED. The
    /// queue serves addresses in turn, so this bounds a device's own wait and memory, not others'.
    public var maximumPasswordChecksPerAddress = PasswordHasher.defaultMaximumPerAddress
    /// Added to the system clock: `--clock` starts the server's time elsewhere, for tests and
    /// demonstrations that need a known week. 0 in real use.
    public var clockOffsetMilliseconds: Int64 = 0

    /// TLS 1.3 with this certificate and key; nil serves plaintext, which ``Server`` allows on a
    /// loopback address only. By default, the self-signed pair in the data directory.
    public var tls: ServerTLSFiles?

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.tls = .selfSigned(in: dataDirectory)
    }
}
