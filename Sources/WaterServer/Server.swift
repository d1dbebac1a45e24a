import Dispatch
import Glibc
import Synchronization
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterSync
import WaterSystem
import WaterTLS
import WaterTransport

/// `water-server serve`: the store, one event loop, the listener and the connections.
///
/// ## Who owns what (the rule the whole server follows)
///
/// - **The event loop's thread** (``EventLoop``, epoll directly) owns the listening socket and
///   every connection: its socket, its ``ConnectionStateMachine``, its buffers and its deadline.
///   Each entry point checks that it runs there (`preconditionInLoop`).
/// - **Writes are group commits, synced beside the loop.** The loop reads everything that is
///   ready and runs the handlers against the archives' in-memory state, whose writes only queue
///   (numbered and queued under each archive's lock, so in sequence order). The committer's
///   writer thread takes everything queued as one group, writes it as one frame of the shared
///   log and syncs it, while the loop goes on with the next requests; a turn's replies wait
///   until the group holding everything they showed is durable, then go. One wake-up per
///   group, none per request.
/// - **Archives**: the latest state belongs to each archive's lock (the loop, and the few jobs
///   off the loop); the shared log's writing end and the durable state belong to the committer's leader.
/// - **Off the loop**, on Dispatch: password hashing (a bounded pool), export encoding and
///   import decoding (a queue each), building the live boards, compaction, making the log's
///   next segment, the status file and the clock's newest-write file. What they produce
///   reaches a connection only through ``EventLoop/execute(_:)``; no other thread writes to a
///   socket. SIGTERM and SIGINT are taken by `water-server`'s main thread (`sigwait`), which
///   calls ``beginGracefulShutdown()``.
/// - **Timers**: one heap in the loop, at each connection's next deadline; an idle connection
///   costs one wake-up per idle timeout.
/// - **Handlers** are typed ``Service``s holding only what they were handed; they run on the
///   loop (or after a password hash, on the hashing pool) and touch archives only through
///   ``ArchiveAccess``, so through each archive's lock.
public final class Server: Sendable {
    let services: ServerServices
    private let loop: EventLoop
    /// The fingerprint of the certificate served, for `water-server status`.
    private let certificate: String
    private let connections: ConnectionRegistry
    private let listenAddress: HostPort
    private let stopped = DispatchSemaphore(value: 0)
    private let statusTimer: SendableTimer
    /// Drops idle members' archives from memory every ``ServerConfiguration/idleArchiveSweep``.
    private let sweepTimer: SendableTimer
    /// Rings when a compaction finished, so the status file says so at once.
    private let compactions: Signal
    /// What shows the board beside the API (Home Assistant's, with `--mqtt`).
    private let publishers: [any BoardPublisher]
    /// The server's figures for a publisher's `/metrics` (the wall's).
    private let metricsSource: MetricsSource

    /// Opens the data directory and binds the listening socket; nothing is accepted until
    /// ``start()``.
    /// - Throws: ``ArchiveError`` for the data directory (locked, unknown format), or
    ///   ``SocketError`` when the address cannot be bound.
    /// What a serving process writes in the data directory's lock: `status` knows the server
    /// runs by finding its lock held by the pid its status file names.
    static func lockOwner(pid: pid_t) -> String { "pid \(pid) water-server serve" }

    public init(configuration: ServerConfiguration, logger: Logger) throws {
        var options = StoreOptions(timeZones: configuration.timeZones)
        options.defaultTimeZone = configuration.householdTimeZone
        options.mayCreate = false
        // `water-server status` shows a compaction when it happens, not at the next tick.
        let compactions = Signal()
        options.compacted = { compactions.fire() }
        self.compactions = compactions
        let store = try FileArchiveStore(
            path: configuration.dataDirectory, options: options, logger: logger,
            owner: Self.lockOwner(pid: getpid()))
        // After the store: it makes a missing data directory, and its lock keeps a second
        // server from making a second key beside this one.
        let tls: TLSContext?
        let listen: HostPort
        do {
            (tls, certificate) = try Self.tlsContext(configuration)
            // Plaintext binds the very address its check resolved: the name is not looked up twice.
            listen = tls == nil ? try configuration.listen.plaintextListenAddress() : configuration.listen
        } catch {
            store.close()
            throw error
        }
        let listener: Socket
        do {
            listener = try Socket.listen(on: listen)
        } catch {
            store.close()
            throw error
        }
        do {
            loop = try EventLoop()
        } catch {
            listener.close()
            store.close()
            throw error
        }
        listenAddress = listener.localAddress ?? configuration.listen
        let services = ServerServices(store: store, configuration: configuration, logger: logger, tls: tls)
        self.services = services
        let metrics = MetricsSource()
        metricsSource = metrics
        do {
            let gate = WallLinkGate(accounts: store.accounts, throttle: services.throttle) { services.now() }
            let feed = BoardFeed(
                boards: services.boards, reminded: services.reminded, wallLinks: gate, metrics: metrics,
                deliveries: configuration.deliveries, wallAddress: services.wallAddress
            ) {
                services.now()
            }
            let made = try configuration.boardPublishers.map { make in try make(feed, logger) }
            let channels = made.compactMap { $0 as? any ReminderChannel } + configuration.reminderChannels
            publishers = made + [ReminderScheduler(feed: feed, channels: channels, logger: logger)]
        } catch {
            listener.close()
            store.close()
            throw error
        }
        connections = ConnectionRegistry(
            listener: listener, loop: loop, services: services, router: services.router(),
            stopped: stopped)
        statusTimer = SendableTimer(
            source: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "water.status", qos: .utility)))
        sweepTimer = SendableTimer(
            source: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "water.idle-sweep", qos: .utility)))
        // Members' archives load when first used; one that cannot be read logs why then.
        metricsSource.provide { [weak self] in self?.metrics() ?? MetricsText() }
    }

    /// The TLS context to serve with, making the self-signed pair in the data directory if it
    /// is the one asked for and missing; nil for plaintext, which only a loopback address may
    /// serve (``HostPort/plaintextListenAddress()``: anything else would send passwords and
    /// tokens in the clear over the LAN). Also returns what `water-server status` shows of it:
    /// the certificate's fingerprint.
    private static func tlsContext(_ configuration: ServerConfiguration) throws -> (TLSContext?, String) {
        guard let files = configuration.tls else {
            return (nil, "none: plaintext (insecure)")
        }
        if files == .selfSigned(in: configuration.dataDirectory) {
            try ServerTLSFiles.ensureSelfSigned(in: configuration.dataDirectory)
        }
        return (
            try TLSContext.server(certificate: files.certificate, key: files.key),
            try Fingerprint(certificateAt: files.certificate).description
        )
    }

    /// The address the server listens on (with port 0 asked for, the port chosen).
    public var boundAddress: HostPort { listenAddress }

    /// Starts the event loop on a thread of its own, accepting connections, and writes
    /// `DATA/status` now and every 5 seconds for `water-server status`.
    public func start() {
        let (loop, connections) = (self.loop, self.connections)
        loop.turnEnded = { connections.turnEnded() }
        // The log's writer syncs each group while the loop takes the next requests; what waited
        // for a group goes when the loop hears of it.
        services.store.committer.startWriter { outcome in
            loop.execute { connections.groupCommitted(outcome) }
        }
        services.clock.check(atStart: true)
        DispatchQueue(label: "water.event-loop", qos: .userInitiated).async { loop.run() }
        loop.execute { connections.startAccepting() }
        statusTimer.source.schedule(deadline: .now(), repeating: .seconds(5), leeway: .seconds(1))
        statusTimer.source.setEventHandler { [weak self] in self?.writeStatus() }
        statusTimer.source.activate()
        compactions.listen { [weak self] in
            self?.statusTimer.source.schedule(deadline: .now(), repeating: .seconds(5), leeway: .seconds(1))
        }
        for publisher in publishers {
            publisher.statusChanged.listen { [weak self] in
                self?.statusTimer.source.schedule(deadline: .now(), repeating: .seconds(5), leeway: .seconds(1))
            }
            publisher.start()
        }
        let (sweepSeconds, _) = services.configuration.idleArchiveSweep.components
        let sweep = DispatchTimeInterval.seconds(Int(max(sweepSeconds, 1)))
        sweepTimer.source.schedule(deadline: .now() + sweep, repeating: sweep, leeway: .seconds(1))
        sweepTimer.source.setEventHandler { [weak self] in
            guard let self, services.store.dropIdleMembers() > 0 else { return }
            statusTimer.source.schedule(deadline: .now(), repeating: .seconds(5), leeway: .seconds(1))
        }
        sweepTimer.source.activate()
    }

    /// This process's private memory (RssAnon of /proc/self/status), in KiB: what a Pi's memory
    /// holds for it alone, beside its binary's pages, which the page cache shares.
    static func privateMemoryKiB() -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("RssAnon:") else { continue }
            // "RssAnon:\t    3276 kB"
            return Int(text.dropFirst(8).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// What `water-server status` shows of a running server, as `key value` lines.
    private func writeStatus() {
        let (loaded, protected, compaction, dropped) = services.store.loadedStatus
        let (members, admins, children) =
            (try? services.store.accounts.read { book in
                (
                    book.accounts.count, book.accounts.values.filter { $0.role == .admin }.count,
                    book.accounts.values.filter(\.isChild).count
                )
            }) ?? (0, 0, 0)
        var lines = [
            "pid \(getpid())",
            "listening \(boundAddress)",
            "started_at_unix_ms \(services.startedAt)",
            "updated_at_unix_ms \(UnixTime.nowMilliseconds())",
            "connections \(connectionCount)",
            "members \(members)",
            "admins \(admins)",
            "children \(children)",
            "archives_loaded \(loaded)",
            "archives_dropped \(dropped)",
            "memory_private_kib \(Self.privateMemoryKiB() ?? 0)",
            "protected \(protected.isEmpty ? "none" : protected.joined(separator: ","))",
            "certificate \(certificate)",
        ]
        if let compaction { lines.append("last_compaction \(compaction.unixMilliseconds) \(compaction.path)") }
        services.clock.check()
        let clock = services.clock.reading()
        lines.append("clock_now_unix_ms \(clock.now)")
        lines.append("clock_behind \(clock.isBehind ? "yes" : "no")")
        if let reference = clock.reference {
            lines.append("clock_reference_unix_ms \(reference.unixMilliseconds)")
            lines.append("clock_reference \(reference.source.rawValue)")
        }
        if clock.isBehind { lines.append("clock_explanation \(services.clock.explanation(clock))") }
        lines += publishers.compactMap(\.statusLine)
        let path = "\(services.configuration.dataDirectory)/status"
        // Rewritten every few seconds and made again after a restart: whole, never synced.
        try? PosixFileSystem().replaceFile(
            path, with: Array((lines.joined(separator: "\n") + "\n").utf8), mode: 0o600, syncing: false)
    }

    /// How many connections are open.
    public var connectionCount: Int { connections.count.load(ordering: .relaxed) }

    /// Stops accepting, lets the calls in flight answer (streams end), then closes the store.
    /// ``waitUntilStopped()`` returns once that is done.
    public func beginGracefulShutdown() {
        statusTimer.source.cancel()
        sweepTimer.source.cancel()
        let connections = self.connections
        loop.execute { connections.drainAll() }
    }

    /// Blocks until a graceful shutdown has finished (or `timeout` passed), then stops the
    /// loop, flushes and closes the store.
    public func waitUntilStopped(timeout: Duration = .seconds(30)) {
        let (seconds, _) = timeout.components
        _ = stopped.wait(timeout: .now() + .seconds(Int(seconds)))
        loop.stop()
        services.clock.flush()
        for publisher in publishers { publisher.stop() }
        // The scheduler has stopped: nothing more is handed to the channels.
        for channel in services.configuration.reminderChannels { channel.stop() }
        services.store.close()
        let commits = services.store.committer.currentStatistics
        services.logger.info(
            "stopped",
            [
                "commit.groups": "\(commits.groups)", "commit.items": "\(commits.items)",
                "commit.syncs": "\(commits.syncs)",
            ])
    }
}

/// A Dispatch timer shared between threads: its methods are thread-safe (libdispatch
/// serialises them), which the type system cannot see.
public struct SendableTimer: @unchecked Sendable {
    public let source: any DispatchSourceTimer

    public init(source: any DispatchSourceTimer) {
        self.source = source
    }
}
