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
    /// Connections served at once. With all of them taken, a new connection is admitted in
    /// place of one that has not logged in (below); when every one has logged in, it is
    /// accepted and closed at once (RESOURCE_EXHAUSTED), never counted.
    /// `deploy/water-server.service`'s `LimitNOFILE` leaves room for them.
    public var maximumConnections = 256
    /// Connections served at once from one address (one device), its share: a device on the
    /// LAN that opens hundreds cannot take the slots everyone else needs. More are refused as
    /// above. Unless set, an eighth of ``maximumConnections`` (32 of 256), but at least 4 (a
    /// device runs a live board beside a few commands); never more than ``maximumConnections``.
    public var maximumConnectionsPerAddress: Int {
        get { min(explicitMaximumPerAddress ?? max(4, maximumConnections / 8), maximumConnections) }
        set { explicitMaximumPerAddress = newValue }
    }
    private var explicitMaximumPerAddress: Int?
    /// Connections from one address still in their TLS or protocol handshake: a device that
    /// opens connections and says nothing holds this many, each for the handshake deadline at
    /// most. Unless set, half its share (16 of 32): room for a device that opens many at once
    /// (a script's parallel commands), never all of its slots.
    public var maximumPendingHandshakesPerAddress: Int {
        get { min(explicitMaximumPending ?? max(1, maximumConnectionsPerAddress / 2), maximumConnectionsPerAddress) }
        set { explicitMaximumPending = newValue }
    }
    private var explicitMaximumPending: Int?
    /// Connections that have not logged in (no Login, no call with a valid token on them), from
    /// everyone: what devices with no account can hold together. At this many a new connection
    /// is still admitted, and one of these is closed for it: the oldest idle one of the address
    /// holding the most (``ConnectionAdmission``). So a member's new connection always gets in,
    /// and a few addresses at their share (8 × 32 = 256) cannot take every slot. Unless set,
    /// three quarters of ``maximumConnections`` (192 of 256, at least 1; the rest only
    /// connections that have logged in hold); never more than it.
    public var maximumUnauthenticatedConnections: Int {
        get {
            min(
                explicitMaximumUnauthenticated ?? max(1, maximumConnections - max(1, maximumConnections / 4)),
                maximumConnections)
        }
        set { explicitMaximumUnauthenticated = newValue }
    }
    private var explicitMaximumUnauthenticated: Int?
    /// Connections still in their TLS or protocol handshake, from everyone: the TLS work and
    /// memory of connections that have proved nothing yet. At this many, the address with the
    /// most of them loses its oldest one for a new connection, as above. Unless set, half of
    /// ``maximumUnauthenticatedConnections`` (96 of 256), at least 1; never more than it.
    public var maximumPendingHandshakes: Int {
        get {
            min(
                explicitMaximumPendingHandshakes ?? max(1, maximumUnauthenticatedConnections / 2),
                maximumUnauthenticatedConnections)
        }
        set { explicitMaximumPendingHandshakes = newValue }
    }
    private var explicitMaximumPendingHandshakes: Int?
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
    /// How often members' archives unused since the previous sweep are dropped from memory
    /// (``FileArchiveStore/dropIdleMembers()``); their next call loads them again.
    public var idleArchiveSweep: Duration = .seconds(300)
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
    /// When this release was built: a time the clock must have passed, or writes are refused
    /// (``ClockGuard``). Nil when `--clock` states the time, and for the library's own tests.
    public var buildTimeUnixMilliseconds: Int64?

    /// TLS 1.3 with this certificate and key; nil serves plaintext, which ``Server`` allows on a
    /// loopback address only. By default, the self-signed pair in the data directory.
    public var tls: ServerTLSFiles?

    /// What publishes the board beside the API, each made from the server's durable feed once
    /// the store is open (`serve --mqtt`: Home Assistant's, from WaterHome); none by default.
    public var boardPublishers: [BoardPublisherMaker] = []
    /// Where reminders go besides a board publisher that takes them (Home Assistant's): the
    /// push sender `water-server serve` makes. None: only publishers send any.
    public var reminderChannels: [any ReminderChannel] = []
    /// What the reminder channels and the MQTT publisher delivered (`/metrics`): the push sender
    /// is given it where it is made, publishers through ``BoardFeed/deliveries``.
    public var deliveries = DeliveryCounts()

    /// How many lines what peers do (refused calls, connection errors, failed logins) may add
    /// to the log: 10 from an address and 30 in all every 10 s; the rest are counted.
    var peerLogLimits = PeerLogBudget.Limits.standard

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.tls = .selfSigned(in: dataDirectory)
    }
}

extension ServerConfiguration {
    /// What ``ConnectionAdmission`` admits by.
    var admissionLimits: ConnectionAdmission.Limits {
        ConnectionAdmission.Limits(
            maximumConnections: maximumConnections, maximumPerAddress: maximumConnectionsPerAddress,
            maximumPendingPerAddress: maximumPendingHandshakesPerAddress,
            maximumUnauthenticated: maximumUnauthenticatedConnections, maximumPending: maximumPendingHandshakes)
    }

    /// What every connection's ``ConnectionStateMachine`` holds its peer to.
    var connectionLimits: ConnectionStateMachine.Limits {
        ConnectionStateMachine.Limits(
            maximumPayloadLength: maximumPayloadLength, maximumCallsInFlight: maximumCallsInFlight,
            frameDeadline: Self.nanoseconds(frameDeadline), idleTimeout: Self.nanoseconds(idleTimeout),
            handshakeDeadline: Self.nanoseconds(handshakeDeadline))
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
