import Dispatch
import Synchronization
import WaterProtocol
import WaterTLS
import WaterTransport

/// What the event loop owns besides the connections themselves: the listening socket, the
/// table of connections, which of them have output to write this turn, whether this turn holds
/// the committer's leadership, and the shutdown. Every method runs on the loop (checked).
final class ConnectionRegistry: EventLoopHandler, ConnectionOwner, @unchecked Sendable {
    private let listener: Socket
    private let loop: EventLoop
    private let services: ServerServices
    private let router: Router
    private let stopped: DispatchSemaphore
    /// How many connections are open, for the status file (read off the loop).
    let count = Atomic<Int>(0)

    private var listenerToken: EventLoop.Token?
    private var connections: [UInt64: Connection] = [:]
    /// Open connections by the peer's address, for the per-address limit.
    private var perAddress: [String: Int] = [:]
    private var nextID: UInt64 = 1
    private var needingFlush: [Connection] = []
    /// The connections being flushed at the end of a turn (``needingFlush`` of the turn).
    private var flushing: [Connection] = []
    /// Whose replies wait for which group of the log.
    private var held = HeldReplies<Connection>()
    private var isShuttingDown = false
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let plaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let decodeArena = WireArena(initialBlockSize: 4096)
    let replyArena = WireArena(initialBlockSize: 4096)

    init(listener: Socket, loop: EventLoop, services: ServerServices, router: Router, stopped: DispatchSemaphore) {
        (self.listener, self.loop, self.services, self.router, self.stopped) = (
            listener, loop, services, router, stopped
        )
    }

    deinit {
        readBuffer.deallocate()
        plaintextBuffer.deallocate()
    }

    func startAccepting() {
        loop.preconditionInLoop()
        do {
            listenerToken = try loop.register(listener.descriptor, readable: true, writable: false, handler: self)
        } catch {
            services.logger.error("accept failed", ["error": error.description])
        }
    }

    // MARK: The turn

    /// A turn ends: every reply made in it waits for the group holding everything queued by
    /// now (whatever the turn's handlers saw, and the turn's own writes), which the committer's
    /// writer, woken now for the whole turn, is syncing or will take next; replies whose group
    /// is durable already go at once. A lone write the loop commits itself is durable here.
    func turnEnded() {
        loop.preconditionInLoop()
        let committer = services.store.committer
        let publication = committer.publishTurn(deliveredThrough: held.durableGroup)
        // Swapped, so that both arrays keep their capacity and a turn allocates nothing here.
        swap(&flushing, &needingFlush)
        for connection in flushing { connection.isQueuedForFlush = false }
        held.turnEnded(publication, group: committer.lastQueuedGroup, holders: flushing)
        flushing.removeAll(keepingCapacity: true)
    }

    /// The committer's writer made `group` durable, or failed it.
    func groupCommitted(_ group: UInt64, succeeded: Bool) {
        loop.preconditionInLoop()
        held.groupCommitted(group, succeeded: succeeded)
    }

    // MARK: Connections

    /// The listening socket is readable: accept everything waiting.
    func ready(_ event: EventLoop.Readiness) {
        while true {
            let socket: Socket
            do throws(SocketError) {
                guard let accepted = try listener.accept() else { return }
                socket = accepted
            } catch {
                services.logger.error("accept failed", ["error": error.description])
                return
            }
            accepted(socket)
        }
    }

    private func accepted(_ socket: Socket) {
        let connection: Connection
        do throws(TLSError) {
            connection = try Connection(
                id: nextID, socket: socket, loop: loop, services: services, router: router, owner: self)
        } catch {
            services.logger.error("connection failed", ["error": error.description])
            return socket.close()
        }
        nextID += 1
        let refusal = refusal(of: connection)
        if let refusal {
            services.logger.info("connection refused", ["peer": connection.peer, "reason": refusal.message])
        }
        connections[connection.id] = connection
        perAddress[connection.peerHost, default: 0] += 1
        count.store(connections.count, ordering: .relaxed)
        do {
            try connection.start(refusing: refusal)
        } catch {
            services.logger.error("connection failed", ["peer": connection.peer, "error": error.description])
            forget(connection)
            socket.close()
        }
    }

    /// Why a new connection cannot be served, or nil when it can.
    private func refusal(of connection: Connection) -> WaterError? {
        let configuration = services.configuration
        if isShuttingDown { return WaterError(.unavailable, "the server is shutting down; try again shortly") }
        if connections.count >= configuration.maximumConnections {
            return WaterError(.resourceExhausted, "the server has too many connections; try again shortly")
        }
        if perAddress[connection.peerHost, default: 0] >= configuration.maximumConnectionsPerAddress {
            return WaterError(
                .resourceExhausted,
                "too many connections from \(connection.peerHost) (at most \(configuration.maximumConnectionsPerAddress)); "
                    + "close some and try again")
        }
        return nil
    }

    private func forget(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        count.store(connections.count, ordering: .relaxed)
        let remaining = perAddress[connection.peerHost, default: 1] - 1
        perAddress[connection.peerHost] = remaining > 0 ? remaining : nil
    }

    func needsFlush(_ connection: Connection) {
        guard !connection.isQueuedForFlush else { return }
        connection.isQueuedForFlush = true
        needingFlush.append(connection)
    }

    func closed(_ connection: Connection) {
        forget(connection)
        if isShuttingDown, connections.isEmpty { stopped.signal() }
    }

    /// Stops accepting and drains every connection; signals `stopped` once all have closed.
    func drainAll() {
        loop.preconditionInLoop()
        guard !isShuttingDown else { return }
        isShuttingDown = true
        if let listenerToken {
            loop.deregister(listener.descriptor, token: listenerToken)
            listener.close()
            self.listenerToken = nil
        }
        services.logger.info("shutting down", ["connections": "\(connections.count)"])
        if connections.isEmpty {
            stopped.signal()
            return
        }
        for connection in Array(connections.values) { connection.drain() }
    }
}
