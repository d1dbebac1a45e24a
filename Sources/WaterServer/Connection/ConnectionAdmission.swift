import WaterProtocol

/// Who gets one of the server's connection slots, with no socket: the global limit, each
/// address's share of it, and each address's connections still in their handshake (as
/// OpenSSH's `MaxStartups` and `PerSourceMaxStartups`, nginx's `limit_conn`). The registry asks
/// at accept (``refusal(for:)``) and tells it what became of each admitted connection.
///
/// Only admitted connections count: a refused one is closed at once and never held against
/// any limit, so a device opening connections as fast as it can holds its share and no more,
/// and nobody else's slots. An address is the peer's numeric address, the port left out;
/// loopback is an address like any other (the machine's own scripts get a share too).
struct ConnectionAdmission {
    struct Limits: Sendable, Equatable {
        /// Connections served at once, from everyone.
        var maximumConnections: Int
        /// Connections served at once from one address: its share of ``maximumConnections``.
        var maximumPerAddress: Int
        /// Connections from one address that have not finished their handshake (TLS and the
        /// protocol's): a device that opens connections and says nothing holds this many.
        var maximumPendingPerAddress: Int
    }

    private struct Usage {
        var open = 0
        var pending = 0
    }

    let limits: Limits
    /// Connections admitted and not yet closed.
    private(set) var open = 0
    private var byAddress: [String: Usage] = [:]
    /// Set once the server is shutting down: every new connection is refused.
    var isShuttingDown = false

    init(limits: Limits) {
        self.limits = limits
    }

    /// Why a new connection from `host` cannot be served, or nil when it can.
    func refusal(for host: String) -> WaterError? {
        if isShuttingDown { return WaterError(.unavailable, "the server is shutting down; try again shortly") }
        if open >= limits.maximumConnections {
            return WaterError(.resourceExhausted, "the server has too many connections; try again shortly")
        }
        let usage = byAddress[host] ?? Usage()
        if usage.open >= limits.maximumPerAddress {
            return WaterError(
                .resourceExhausted,
                "too many connections from \(host) (at most \(limits.maximumPerAddress)); close some and try again")
        }
        if usage.pending >= limits.maximumPendingPerAddress {
            return WaterError(
                .resourceExhausted,
                "too many connections from \(host) still in their handshake (at most "
                    + "\(limits.maximumPendingPerAddress)); try again shortly")
        }
        return nil
    }

    /// How many connections from `host` are open, and how many of them are pending.
    func usage(of host: String) -> (open: Int, pending: Int) {
        let usage = byAddress[host] ?? Usage()
        return (usage.open, usage.pending)
    }

    /// A connection from `host` was admitted: it is open and pending until its handshake.
    mutating func admitted(_ host: String) {
        open += 1
        byAddress[host, default: Usage()].open += 1
        byAddress[host, default: Usage()].pending += 1
    }

    /// A connection from `host` finished its handshake: no longer pending.
    mutating func handshakeCompleted(_ host: String) {
        guard let usage = byAddress[host], usage.pending > 0 else { return }
        byAddress[host]?.pending -= 1
    }

    /// An admitted connection from `host` closed; `wasPending` if before its handshake.
    mutating func closed(_ host: String, wasPending: Bool) {
        guard var usage = byAddress[host], usage.open > 0 else { return }
        open -= 1
        usage.open -= 1
        if wasPending, usage.pending > 0 { usage.pending -= 1 }
        byAddress[host] = usage.open > 0 ? usage : nil
    }
}
