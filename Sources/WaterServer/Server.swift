import Dispatch
import Glibc
import Synchronization
import WaterCore
import WaterLog
import WaterProtocol
import WaterStore
import WaterTransport

/// `water-server serve`: the store, the listener and the connections.
///
/// Sockets are non-blocking and driven by Dispatch sources; each connection has a serial queue
/// on a shared pool, so a thousand idle connections cost no threads.
public final class Server: Sendable {
    private let services: ServerServices
    private let router: Router
    private let listener: Listener
    private let acceptQueue = DispatchQueue(label: "water.accept")
    private let connectionPool = DispatchQueue(label: "water.connections", attributes: .concurrent)
    private let state = Mutex(State())
    private let stopped = DispatchSemaphore(value: 0)
    private let statusTimer: SendableTimer

    private struct State {
        var connections: [UInt64: Connection] = [:]
        var nextID: UInt64 = 1
        var isShuttingDown = false
    }

    /// Opens the data directory and binds the listening socket; nothing is accepted until
    /// ``start()``.
    /// - Throws: ``ArchiveError`` for the data directory (locked, unknown format), or
    ///   ``SocketError`` when the address cannot be bound.
    public init(configuration: ServerConfiguration, logger: Logger) throws {
        var options = StoreOptions()
        options.defaultTimeZone = configuration.householdTimeZone
        let store = try FileArchiveStore(path: configuration.dataDirectory, options: options, logger: logger,
                                         owner: "pid \(getpid()) water-server serve")
        do {
            self.listener = try Listener(address: configuration.listen, queue: acceptQueue)
        } catch {
            store.close()
            throw error
        }
        self.services = ServerServices(store: store, configuration: configuration, logger: logger)
        var router = Router()
        router.registerAccounts()
        router.registerTracker()
        router.registerBoard()
        router.registerTodo()
        router.registerHabits()
        router.registerTransfer()
        self.router = router
        self.statusTimer = SendableTimer(source: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "water.status", qos: .utility)))
        // Members' archives load when first used; one that cannot be read logs why then.
    }

    /// The address the server listens on (with port 0 asked for, the port chosen).
    public var boundAddress: HostPort { listener.boundAddress }

    /// Starts accepting connections, and writes `DATA/status` now and every 5 seconds for
    /// `water-server status`.
    public func start() {
        statusTimer.source.schedule(deadline: .now(), repeating: .seconds(5), leeway: .seconds(1))
        statusTimer.source.setEventHandler { [weak self] in self?.writeStatus() }
        statusTimer.source.activate()
        acceptQueue.async { [self] in
            listener.start(accept: { [self] socket in accepted(socket) },
                           failed: { [self] error in services.logger.error("accept failed", ["error": error.description]) })
        }
    }

    private func accepted(_ socket: Socket) {
        let (id, refused) = state.withLock { state -> (UInt64, Bool) in
            defer { state.nextID += 1 }
            return (state.nextID, state.isShuttingDown || state.connections.count >= services.configuration.maximumConnections)
        }
        let connection = Connection(
            id: id, socket: socket, queue: DispatchQueue(label: "water.connection", target: connectionPool),
            services: services, router: router,
            onClosed: { [weak self] id in self?.connectionClosed(id) })
        if refused {
            services.logger.info("connection refused", ["peer": connection.peer, "reason": "too many connections"])
            connection.refuse(WaterError(.unavailable, "the server has too many connections; try again shortly"))
            return
        }
        state.withLock { $0.connections[id] = connection }
        connection.start()
    }

    private func connectionClosed(_ id: UInt64) {
        let finished = state.withLock { state -> Bool in
            state.connections[id] = nil
            return state.isShuttingDown && state.connections.isEmpty
        }
        if finished { stopped.signal() }
    }

    /// What `water-server status` shows of a running server, as `key value` lines.
    private func writeStatus() {
        let (loaded, protected, compaction) = services.store.loadedStatus
        let members = (try? services.store.accounts.read { $0.accounts.count }) ?? 0
        var lines = [
            "pid \(getpid())",
            "listening \(boundAddress)",
            "started_at_unix_ms \(services.startedAt)",
            "updated_at_unix_ms \(UnixTime.nowMilliseconds())",
            "connections \(connectionCount)",
            "members \(members)",
            "archives_loaded \(loaded)",
            "protected \(protected.isEmpty ? "none" : protected.joined(separator: ","))",
        ]
        if let compaction { lines.append("last_compaction \(compaction.unixMilliseconds) \(compaction.path)") }
        let path = "\(services.configuration.dataDirectory)/status"
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        let fd = open(path + ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        rename(path + ".tmp", path)
    }

    /// How many connections are open.
    public var connectionCount: Int { state.withLock { $0.connections.count } }

    /// Stops accepting, lets the calls in flight answer (streams end), then closes the store.
    /// ``waitUntilStopped()`` returns once that is done.
    public func beginGracefulShutdown() {
        let connections = state.withLock { state -> [Connection]? in
            guard !state.isShuttingDown else { return nil }
            state.isShuttingDown = true
            return Array(state.connections.values)
        }
        guard let connections else { return }
        acceptQueue.async { [self] in listener.stop() }
        statusTimer.source.cancel()
        services.logger.info("shutting down", ["connections": "\(connections.count)"])
        if connections.isEmpty { stopped.signal() }
        for connection in connections { connection.drain() }
    }

    /// Blocks until a graceful shutdown has finished (or `timeout` passed), then flushes and
    /// closes the store.
    public func waitUntilStopped(timeout: Duration = .seconds(30)) {
        let (seconds, _) = timeout.components
        _ = stopped.wait(timeout: .now() + .seconds(Int(seconds)))
        services.store.close()
        let commits = services.store.committer.currentStatistics
        services.logger.info("stopped", ["commit.groups": "\(commits.groups)", "commit.items": "\(commits.items)",
                                         "commit.syncs": "\(commits.syncs)"])
    }
}

/// A Dispatch timer shared between threads: its methods are thread-safe (libdispatch
/// serialises them), which the type system cannot see.
struct SendableTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer
}
