import WaterLog
import WaterProtocol
import WaterTransport

/// The lines a ``Connection`` logs about its peer, each within the rate limit of lines peers
/// may cause (``PeerLog``; issue 30: a device with no account made 36 000-55 000 `call failed`
/// lines a second). Immutable: one line per call, no state.
struct ConnectionLog {
    /// The peer's address and port.
    let peer: String
    /// The peer's address without the port: what connection limits and login throttling count.
    let peerHost: String
    private let peerLog: PeerLog
    /// For the one line a connection logs outside the peers' budget (its streams paused).
    private let logger: Logger

    init(peer address: HostPort?, peerLog: PeerLog, logger: Logger) {
        peer = address?.description ?? "?"
        peerHost = address?.host ?? "?"
        self.peerLog = peerLog
        self.logger = logger
    }

    /// The connection failed (the socket, TLS), or the peer closed it inside a frame (`cause`).
    func connectionError(_ error: String, cause: String? = nil, level: Logger.Level = .info) {
        if let cause {
            log(level, "connection error", ["peer": peer, "error": error, "cause": cause])
        } else {
            log(level, "connection error", ["peer": peer, "error": error])
        }
    }

    /// The connection closes for a protocol error the peer was just told (`reason`), if any.
    func closing(_ reason: WaterError?) {
        guard let reason else { return }
        log(.info, "connection error", ["peer": peer, "rpc.code": "\(reason.code)", "message": reason.message])
    }

    /// The peer has read nothing for `timeout` nanoseconds while `unsent` bytes waited for it.
    func stalled(unsent: Int, for timeout: UInt64) {
        log(
            .info, "connection error",
            ["peer": peer, "unsent": "\(unsent)", "error": "read nothing for \(Duration.nanoseconds(Int64(timeout)))"])
    }

    /// A call ended with a status other than OK.
    func callFailed(_ method: String, _ code: WaterV1.StatusCode, _ message: String) {
        log(.info, "call failed", ["rpc.method": method, "rpc.code": "\(code)", "peer": peer, "message": message])
    }

    /// A call the server itself failed (its disk, an unexpected error): what failed beneath, at
    /// error level, beside the "call failed" line that says what the client was told.
    func serverFailure(_ method: String, _ error: WaterError) {
        guard let cause = error.cause else { return }
        log(.error, "server failure", ["rpc.method": method, "rpc.code": "\(error.code)", "cause": "\(cause)"])
    }

    /// The connection's streams paused for the first time: its peer reads slower than they make.
    func streamsPaused(unsent: Int) {
        logger.info("streams paused", ["peer": peer, "unsent": "\(unsent)", "reason": "the peer is not reading"])
    }

    private func log(_ level: Logger.Level, _ message: String, _ metadata: KeyValuePairs<String, String>) {
        peerLog.log(level, message, from: peerHost, metadata)
    }
}
