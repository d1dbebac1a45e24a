import Dispatch
import Glibc
import WaterServer
import WaterSync

/// Which page connections the wall takes, and how long one that has not shown a link may stay.
/// MHD asks ``mayAccept(from:)`` of each new connection on its accepting thread, then tells
/// ``started(_:from:descriptor:)`` and ``closed(_:)``; its own caps are set a little above
/// these as a backstop, so that a connection past them is accepted and closed at once (and
/// counted) rather than left waiting in the kernel's queue.
///
/// A connection that has not carried a valid link (``trusted(_:)``) is shut down
/// ``WallSettings/untrustedSeconds`` after it was accepted, whatever it is doing: a LAN peer
/// trickling its headers a byte at a time cannot keep one of the 32 slots (MHD's own timeout
/// is for inactivity, which a trickle resets). A connection that showed a link is the
/// household's (its live stream): 60 s of inactivity.
///
/// ## Who owns what
/// - ``state`` (its lock): the open connections (by MHD's pointer) with their address, socket,
///   start and whether they showed a link; written by MHD's accepting and connection threads
///   and by ``sweeper``'s queue, which shuts the late ones down. A socket is shut down only
///   while its connection is in the table, under the lock, and MHD closes a socket only after
///   telling ``closed(_:)``: never a socket number reused by another.
/// - ``refusals``: atomics, added to under the lock, read by `/metrics`.
final class WallAdmission: Sendable {
    struct Limits: Sendable {
        var connections: Int
        var perAddress: Int
        var untrustedNanoseconds: UInt64
    }

    enum Refusal: Int, CaseIterable {
        case atCap, perAddress, untrustedTimeout
        var label: String { ["cap", "per_address", "no_link_in_time"][rawValue] }
    }

    private struct Open {
        var address: String
        var descriptor: Int32
        var acceptedAt: UInt64
        var isTrusted = false
        var isShutDown = false
    }

    private struct State {
        var open: [UInt: Open] = [:]
        var byAddress: [String: Int] = [:]
    }

    private let limits: Limits
    private let state = Locked(State())
    private let refusals = AtomicCounters(count: Refusal.allCases.count)
    private let sweeper: SendableTimer

    init(limits: Limits) {
        self.limits = limits
        sweeper = SendableTimer(
            source: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "water.wall-admission")))
    }

    func start() {
        sweeper.source.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        sweeper.source.setEventHandler { [weak self] in self?.sweep() }
        sweeper.source.activate()
    }

    func stop() { sweeper.source.cancel() }

    /// Whether a new connection from `address` may be taken; a refusal is counted.
    func mayAccept(from address: String) -> Bool {
        let refusal = state.withLock { state -> Refusal? in
            if state.open.count >= limits.connections { return .atCap }
            if state.byAddress[address, default: 0] >= limits.perAddress { return .perAddress }
            return nil
        }
        if let refusal { refusals.add(refusal.rawValue) }
        return refusal == nil
    }

    func started(_ connection: UInt, from address: String, descriptor: Int32) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            guard state.open[connection] == nil else { return }
            state.open[connection] = Open(address: address, descriptor: descriptor, acceptedAt: now)
            state.byAddress[address, default: 0] += 1
        }
    }

    func closed(_ connection: UInt) {
        state.withLock { state in
            guard let open = state.open.removeValue(forKey: connection) else { return }
            let left = state.byAddress[open.address, default: 1] - 1
            state.byAddress[open.address] = left > 0 ? left : nil
        }
    }

    /// The connection carried a valid link: it is no longer shut down for being slow.
    func trusted(_ connection: UInt) {
        state.withLock { $0.open[connection]?.isTrusted = true }
    }

    /// On the sweeper's queue: shuts down every connection without a link past its time; MHD's
    /// thread of it then reads the end and closes it.
    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let late = state.withLock { state -> Int in
            var late = 0
            for (key, open) in state.open
            where !open.isTrusted && !open.isShutDown && now > open.acceptedAt + limits.untrustedNanoseconds {
                state.open[key]?.isShutDown = true
                shutdown(open.descriptor, Int32(SHUT_RDWR))
                late += 1
            }
            return late
        }
        if late > 0 { refusals.add(Refusal.untrustedTimeout.rawValue, late) }
    }

    func add(to text: inout MetricsText) {
        let open = state.withLock { $0.open.count }
        text.add("water_wall_connections_open", .gauge, "Page connections open now.", open)
        text.add(
            "water_wall_connections_refused_total", .counter,
            "Page connections turned away, by why: at the cap in all, at the address's cap, or closed for not "
                + "showing a link in time.",
            Refusal.allCases.map { ("reason=\"\($0.label)\"", refusals[$0.rawValue]) })
    }
}
