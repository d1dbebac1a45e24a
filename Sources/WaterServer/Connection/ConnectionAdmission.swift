import WaterProtocol

/// Who gets one of the server's connection slots, with no socket: the global limit, each
/// address's share of it, each address's connections still in their handshake (as OpenSSH's
/// `MaxStartups` and `PerSourceMaxStartups`, nginx's `limit_conn`), and, from everyone, the
/// connections that have not logged in and those still in their handshake. The registry asks
/// at accept (``decision(for:isIdle:)``) and tells it what became of each admitted connection.
///
/// Only admitted connections count: a refused one is closed at once and never held against
/// any limit, so a device opening connections as fast as it can holds its share and no more,
/// and nobody else's slots. An address is the peer's numeric address, the port left out;
/// loopback is an address like any other (the machine's own scripts get a share too).
///
/// Shares alone let a few addresses together take every slot (8 of them at 32 each fill 256).
/// So connections that have not logged in are capped below the slots, and at that cap (or at
/// the cap of pending handshakes, or with every slot taken) a new connection is not refused:
/// one that has not logged in is closed to make room (``EvictionCandidates``), taken from the
/// address holding the most, oldest first, idle ones before any with a call in flight. A
/// member's new connection always gets in and has the time of its login; devices with no
/// account churn their own connections. A connection that has logged in is never closed for
/// another; only when they hold every slot is a new connection refused.
struct ConnectionAdmission {
    struct Limits: Sendable, Equatable {
        /// Connections served at once, from everyone.
        var maximumConnections: Int
        /// Connections served at once from one address: its share of ``maximumConnections``.
        var maximumPerAddress: Int
        /// Connections from one address that have not finished their handshake (TLS and the
        /// protocol's): a device that opens connections and says nothing holds this many.
        var maximumPendingPerAddress: Int
        /// Connections that have not logged in (a Login, or a call with a valid token), from
        /// everyone; at this many, one of them is closed for each new connection.
        var maximumUnauthenticated: Int
        /// Connections still in their handshake, from everyone; at this many, one of them is
        /// closed for each new connection.
        var maximumPending: Int
    }

    /// What to do with a new connection.
    enum Decision: Equatable {
        case admit
        /// Close this connection (it has not logged in), then admit the new one.
        case admitClosing(UInt64)
        /// Close the new connection at once, telling it why.
        case refuse(WaterError)
    }

    private struct Admitted {
        var host: String
        var isPending = true
        var isLoggedIn = false
    }

    let limits: Limits
    /// Connections admitted and not yet closed.
    private(set) var open = 0
    private var admitted: [UInt64: Admitted] = [:]
    private var openByAddress: [String: Int] = [:]
    /// Connections that have not logged in, pending ones included.
    private var unauthenticated = EvictionCandidates()
    /// Connections still in their handshake.
    private var pending = EvictionCandidates()
    /// Set once the server is shutting down: every new connection is refused.
    var isShuttingDown = false

    init(limits: Limits) {
        self.limits = limits
    }

    /// What to do with a new connection from `host`; `isIdle` says whether an admitted
    /// connection has no call in flight.
    func decision(for host: String, isIdle: (UInt64) -> Bool) -> Decision {
        if isShuttingDown { return .refuse(WaterError(.unavailable, "the server is shutting down; try again shortly")) }
        let usage = usage(of: host)
        if usage.open >= limits.maximumPerAddress {
            return .refuse(
                WaterError(
                    .resourceExhausted,
                    "too many connections from \(host) (at most \(limits.maximumPerAddress)); close some and try again"
                ))
        }
        if usage.pending >= limits.maximumPendingPerAddress {
            return .refuse(
                WaterError(
                    .resourceExhausted,
                    "too many connections from \(host) still in their handshake (at most "
                        + "\(limits.maximumPendingPerAddress)); try again shortly"))
        }
        // Closing a pending connection makes room under every cap at once; any other that has
        // not logged in, under all but the pending one.
        let victim: UInt64?
        if pending.count >= limits.maximumPending {
            victim = pending.victim(isIdle: isIdle)
        } else if unauthenticated.count >= limits.maximumUnauthenticated || open >= limits.maximumConnections {
            victim = unauthenticated.victim(isIdle: isIdle)
        } else {
            return .admit
        }
        guard let victim else {
            return .refuse(WaterError(.resourceExhausted, "the server has too many connections; try again shortly"))
        }
        return .admitClosing(victim)
    }

    /// How many connections from `host` are open, and how many of them are pending.
    func usage(of host: String) -> (open: Int, pending: Int) {
        (openByAddress[host] ?? 0, pending.count(of: host))
    }

    /// Connections that have not logged in, pending ones included.
    var unauthenticatedCount: Int { unauthenticated.count }
    /// Connections still in their handshake.
    var pendingCount: Int { pending.count }

    /// Connection `id` from `host` was admitted: it is open, pending until its handshake and
    /// unauthenticated until it logs in. Ids only grow.
    mutating func admitted(_ id: UInt64, from host: String) {
        guard admitted[id] == nil else { return }
        admitted[id] = Admitted(host: host)
        open += 1
        openByAddress[host, default: 0] += 1
        unauthenticated.insert(id, from: host)
        pending.insert(id, from: host)
    }

    /// Connection `id` finished its handshake: no longer pending.
    mutating func handshakeCompleted(_ id: UInt64) {
        guard let connection = admitted[id], connection.isPending else { return }
        admitted[id]?.isPending = false
        pending.remove(id, from: connection.host)
    }

    /// Connection `id` logged in: never closed to make room from now on.
    mutating func loggedIn(_ id: UInt64) {
        guard let connection = admitted[id], !connection.isLoggedIn else { return }
        admitted[id]?.isLoggedIn = true
        unauthenticated.remove(id, from: connection.host)
    }

    /// Whether `host` has all the connections it may (open, or still in their handshake).
    func isAddressFull(_ host: String) -> Bool {
        let usage = usage(of: host)
        return usage.open >= limits.maximumPerAddress || usage.pending >= limits.maximumPendingPerAddress
    }

    /// Connection `id` closed. Returns whether it was still in its handshake.
    @discardableResult
    mutating func closed(_ id: UInt64) -> Bool {
        guard let connection = admitted.removeValue(forKey: id) else { return false }
        open -= 1
        let host = connection.host
        openByAddress[host] = openByAddress[host].flatMap { $0 > 1 ? $0 - 1 : nil }
        if connection.isPending { pending.remove(id, from: host) }
        if !connection.isLoggedIn { unauthenticated.remove(id, from: host) }
        return connection.isPending
    }
}
