import Dispatch

/// Accepts connections on a listening socket, driven by a Dispatch read source.
///
/// - Important: Call every method on `queue`.
public final class Listener: @unchecked Sendable {
    public let socket: Socket
    public let queue: DispatchQueue
    private var source: DispatchSourceRead?

    /// Binds and listens on `address`; port 0 picks a free port (see ``boundAddress``).
    public init(address: HostPort, queue: DispatchQueue) throws(SocketError) {
        self.socket = try Socket.listen(on: address)
        self.queue = queue
    }

    /// The address actually bound: with port 0 asked for, the port the system chose.
    public var boundAddress: HostPort { socket.localAddress ?? HostPort(host: "?", port: 0) }

    /// Calls `accept` with each new connection (already non-blocking), and `failed` when
    /// accepting fails for a reason other than a peer that gave up (EMFILE, say).
    public func start(accept: @escaping (Socket) -> Void, failed: @escaping (SocketError) -> Void) {
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        source.setEventHandler { [socket] in
            while true {
                do throws(SocketError) {
                    guard let connection = try socket.accept() else { return }
                    accept(connection)
                } catch {
                    failed(error)
                    return
                }
            }
        }
        let socket = self.socket
        source.setCancelHandler { socket.close() }
        self.source = source
        source.activate()
    }

    /// Stops accepting and closes the listening socket.
    public func stop() {
        source?.cancel()
        source = nil
    }
}
