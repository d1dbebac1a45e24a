import CBuildTime
import CLinux
import Dispatch
import Glibc
import WaterCLI
import WaterCore
import WaterHome
import WaterLog
import WaterProtocol
import WaterPush
import WaterServer
import WaterTransport
import WaterWall

/// `serve`: the household's server, until SIGTERM or SIGINT; it never returns.
enum ServeCommand: ServerCommand {
    static let spec = CommandSpec(
        "serve", summary: "serve the household (default 127.0.0.1:\(WireProtocol.defaultPort))",
        details: """
            Serves the household from DIR until SIGTERM or SIGINT, which let calls in flight finish.
            The certificate is the self-signed pair init made in DIR/tls, or --tls-cert and --tls-key.
            With --mqtt, each member's figures and the board appear in Home Assistant (MQTT discovery).
            With --wall, the week's board is a web page for a kitchen tablet, opened by a link an admin
            makes (water-client wall link); over HTTPS with the same certificate (plaintext with
            --plaintext, on loopback only).
            """,
        options: [
            dataOption,
            OptionSpec("listen", "HOST:PORT", "where to listen (default 127.0.0.1:\(WireProtocol.defaultPort))"),
            OptionSpec("time-zone", "ZONE", "the household's IANA time zone (default: $TZ, /etc/timezone, or UTC)"),
            OptionSpec("tls-cert", "FILE", "a certificate (with its chain) in PEM, from a CA"),
            OptionSpec("tls-key", "FILE", "its key in PEM"),
            OptionSpec("plaintext", nil, "no TLS: insecure, refused unless --listen is a loopback address"),
            OptionSpec("max-connections", "N", "connections served at once (default 256)"),
            OptionSpec(
                "max-per-address", "N",
                "connections served at once from one address (default an eighth of --max-connections: 32)"),
            OptionSpec(
                "max-unauthenticated", "N",
                "connections not logged in, from everyone; past it one is closed for each new one "
                    + "(default three quarters of --max-connections: 192)"),
            OptionSpec(
                "max-handshakes", "N",
                "connections in their TLS or protocol handshake, from everyone; likewise "
                    + "(default half of --max-unauthenticated: 96)"),
            OptionSpec("handshake-deadline", "SECONDS", "time from connecting to the handshake (default 10)"),
            OptionSpec("max-calls", "N", "calls in flight per connection (default 32)"),
            OptionSpec("max-frame", "BYTES", "largest frame payload (default 1048576)"),
            OptionSpec("frame-deadline", "SECONDS", "time to deliver a started frame (default 10)"),
            OptionSpec("idle-timeout", "SECONDS", "close connections silent this long (default 300)"),
            OptionSpec(
                "idle-sweep", "SECONDS",
                "every SECONDS, drop from memory members' archives unused since the last time (default 300)"),
            passwordStrength,
            OptionSpec(
                "clock", "UNIX_MS",
                "start the server's clock at this time (tests and demonstrations; the build-time check is off)"),
            OptionSpec(
                "mqtt", "HOST:PORT",
                "publish the board to this MQTT broker for Home Assistant (default $WATER_MQTT; port 1883, 8883 with TLS)"
            ),
            OptionSpec("mqtt-user", "NAME", "the username to log in to the broker with"),
            OptionSpec(
                "mqtt-password-file", "FILE", "the broker password: the first line of FILE (with --mqtt-user)"),
            OptionSpec("mqtt-tls", nil, "TLS to the broker, checked against the system's CAs or --mqtt-ca"),
            OptionSpec(
                "mqtt-insecure", nil,
                "send the broker password in clear to a broker not on loopback (refused without it or --mqtt-tls)"),
            OptionSpec("mqtt-ca", "FILE", "the CA (PEM) that signed the broker's certificate (with --mqtt-tls)"),
            OptionSpec(
                "push-allow-private", nil,
                "let push reminders go to endpoints on this machine or the local network (a family's own ntfy)"),
            OptionSpec("mqtt-prefix", "PREFIX", "the first level of every topic and sensor id (default water)"),
            OptionSpec(
                "wall", "HOST:PORT",
                "serve the kitchen wall, the board as a web page, here (off by default; port \(WallSettings.defaultPort))"
            ),
            OptionSpec(
                "metrics-token-file", "FILE",
                "the wall's /metrics asks every peer for this bearer token, the first line of FILE (without it: loopback only)"
            ),
        ],
        examples: [
            "serve --data /var/lib/water --listen 0.0.0.0:7420 --time-zone Europe/Berlin",
            "serve --data /var/lib/water --mqtt 127.0.0.1:1883 --mqtt-user water --mqtt-password-file /etc/water/mqtt-password",
            "serve --data /var/lib/water --listen 0.0.0.0:7420 --wall 0.0.0.0:7421",
        ])

    static func run(_ arguments: inout Arguments) throws {
        // What a long run keeps in memory stays near what a restart on the same data holds.
        _ = CLinux_keep_large_allocations_apart()
        var configuration = ServerConfiguration(dataDirectory: try requireData(&arguments))
        if let listen = try arguments.option("listen") {
            guard let address = HostPort(parsing: listen, defaultPort: WireProtocol.defaultPort) else {
                throw UsageError("--listen must be HOST:PORT, got \(listen)")
            }
            configuration.listen = address
        }
        configuration.householdTimeZone = try householdTimeZone(try arguments.option("time-zone"))
        let certificate = try arguments.option("tls-cert")
        let key = try arguments.option("tls-key")
        switch (arguments.flag("plaintext"), certificate, key) {
        case (true, nil, nil):
            do {
                configuration.listen = try configuration.listen.plaintextListenAddress()
            } catch {
                throw UsageError(error.description)
            }
            configuration.tls = nil
        case (true, _, _): throw UsageError("--plaintext turns TLS off; it cannot go with --tls-cert or --tls-key")
        case (false, let certificate?, let key?): configuration.tls = ServerTLSFiles(certificate: certificate, key: key)
        case (false, nil, nil): break
        case (false, _, _): throw UsageError("--tls-cert and --tls-key go together")
        }
        configuration.maximumConnections =
            try arguments.integer("max-connections", in: 1...100_000) ?? configuration.maximumConnections
        if let perAddress = try arguments.integer("max-per-address", in: 1...100_000) {
            configuration.maximumConnectionsPerAddress = perAddress
        }
        if let unauthenticated = try arguments.integer("max-unauthenticated", in: 1...100_000) {
            configuration.maximumUnauthenticatedConnections = unauthenticated
        }
        if let handshakes = try arguments.integer("max-handshakes", in: 1...100_000) {
            configuration.maximumPendingHandshakes = handshakes
        }
        if let seconds = try arguments.integer("handshake-deadline", in: 1...3600) {
            configuration.handshakeDeadline = .seconds(seconds)
        }
        configuration.maximumCallsInFlight =
            try arguments.integer("max-calls", in: 1...10_000) ?? configuration.maximumCallsInFlight
        configuration.maximumPayloadLength =
            try arguments.integer("max-frame", in: 1024...(64 << 20)) ?? configuration.maximumPayloadLength
        if let seconds = try arguments.integer("frame-deadline", in: 1...3600) {
            configuration.frameDeadline = .seconds(seconds)
        }
        if let seconds = try arguments.integer("idle-timeout", in: 1...86_400) {
            configuration.idleTimeout = .seconds(seconds)
        }
        if let seconds = try arguments.integer("idle-sweep", in: 1...86_400) {
            configuration.idleArchiveSweep = .seconds(seconds)
        }
        configuration.passwordStrength = try strength(try arguments.option("password-strength"))
        if let clock = try arguments.integer("clock", in: Int64(946_684_800_000)...Int64(4_102_444_800_000)) {
            configuration.clockOffsetMilliseconds = clock - UnixTime.nowMilliseconds()
        } else {
            // A stated clock is taken as it is; the system's must have passed this release's build.
            configuration.buildTimeUnixMilliseconds = BuildTime.unixMilliseconds(
                date: String(cString: CBuildTime_date()), time: String(cString: CBuildTime_time()))
        }
        configuration.boardPublishers = try mqttSettings(&arguments).map { [HomePublisher.maker($0)] } ?? []
        if let wall = try wallSettings(&arguments, tls: configuration.tls) {
            configuration.boardPublishers.append(WallServer.maker(wall))
        }
        let allowPrivatePush = arguments.flag("push-allow-private")
        try arguments.finish()

        let logger = Logger.standardError()
        ensureDescriptors(for: configuration.maximumConnections, logger: logger)
        // Members choose push endpoints with water-client remind; the sender idles until one does.
        configuration.reminderChannels =
            PushSender(logger: logger, allowPrivate: allowPrivatePush, deliveries: configuration.deliveries).map {
                [$0]
            } ?? []
        let server = try Server(configuration: configuration, logger: logger)
        signal(SIGPIPE, SIG_IGN)
        // SIGTERM and SIGINT stop accepting, let calls in flight finish, flush and exit 0.

        server.start()
        Terminal.print("listening on \(server.boundAddress)")
        DispatchQueue.global().async {
            server.waitUntilStopped(timeout: .seconds(3_600 * 24 * 365))
            exit(ExitCode.ok.rawValue)
        }
        // The main thread waits for SIGTERM and SIGINT, blocked since the start (dispatchMain
        // would unblock them there, and a signal could then end the process before any handler).
        var blocked = servingSignals
        var number: Int32 = 0
        while true {
            if sigwait(&blocked, &number) == 0 { server.beginGracefulShutdown() }
        }
    }
}

extension ServeCommand {
    /// `--wall HOST:PORT`: the kitchen wall with the protocol's certificate, or plaintext (with
    /// `--plaintext`) on a loopback address only, as the protocol.
    static func wallSettings(_ arguments: inout Arguments, tls: ServerTLSFiles?) throws -> WallSettings? {
        let tokenFile = try arguments.option("metrics-token-file")
        guard let text = try arguments.option("wall") else {
            if tokenFile != nil { throw UsageError("--metrics-token-file is for the wall's /metrics: give --wall too") }
            return nil
        }
        guard var address = HostPort(parsing: text, defaultPort: WallSettings.defaultPort) else {
            throw UsageError("--wall must be HOST:PORT, got \(text)")
        }
        if tls == nil {
            do {
                address = try address.plaintextListenAddress()
            } catch {
                throw UsageError("--wall: \(error.description)")
            }
        }
        var settings = WallSettings(listen: address, tls: tls)
        settings.metricsTokenFile = tokenFile
        return settings
    }

    /// SIGTERM and SIGINT, which make `serve` stop gracefully. For `serve` they are blocked first
    /// thing, before any thread exists (every thread inherits the mask), so one that arrives early
    /// stays pending until the thread that waits for them takes it. With SIG_IGN and Dispatch signal
    /// sources, a SIGTERM right after "listening on" could be discarded before the source took over,
    /// and the server never stopped (a test saw it).
    static let servingSignals: sigset_t = {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }()

    /// Blocks ``servingSignals`` when the command line is `serve`: call it first thing, before any
    /// thread exists.
    static func blockSignalsBeforeServing(_ commandLine: [String]) {
        guard commandLine.dropFirst().first == "serve" else { return }
        var blocked = servingSignals
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }

    /// Descriptors the server needs: one per connection, and some 64 for its own files (the log,
    /// snapshots, a backup, the loop). Raises the soft limit that far when the hard limit allows
    /// (as nginx's `worker_rlimit_nofile`, Redis's `maxclients` check); otherwise says so once:
    /// accept would fail (and back off) before `--max-connections` is reached.
    static func ensureDescriptors(for connections: Int, logger: Logger) {
        let needed = rlim_t(connections + 64)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < needed else { return }
        let raised = min(needed, limit.rlim_max)
        var wanted = rlimit(rlim_cur: raised, rlim_max: limit.rlim_max)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0, raised >= needed { return }
        logger.warning(
            "the descriptor limit is below what --max-connections needs; raise LimitNOFILE (or ulimit -n)",
            ["limit": "\(raised)", "needed": "\(needed)", "max_connections": "\(connections)"])
    }
}
