import WaterSync

/// Protocol connections turned away, by why, for `/metrics`: counted by the event loop where
/// it refuses or closes them (``ConnectionRegistry``), read by `/metrics`; atomics, no lock.
final class ConnectionRefusals: Sendable {
    enum Reason: Int, CaseIterable {
        /// Every slot taken, none closable to make room (or the server shutting down).
        case atCap
        /// Its address has as many open (or still in their handshake) as it may.
        case perAddress
        /// Closed before its handshake was answered: TLS refused, a bad or late handshake, or
        /// a peer that went away.
        case handshakeFailed

        var label: String {
            switch self {
            case .atCap: "cap"
            case .perAddress: "per_address"
            case .handshakeFailed: "handshake"
            }
        }
    }

    private let counts = AtomicCounters(count: Reason.allCases.count)

    func refused(_ reason: Reason) { counts.add(reason.rawValue) }

    func add(to text: inout MetricsText) {
        text.add(
            "water_connections_refused_total", .counter,
            "Protocol connections refused or failed, by why: at the connection cap, at the address's cap, "
                + "or closed before their handshake was done.",
            Reason.allCases.map { ("reason=\"\($0.label)\"", counts[$0.rawValue]) })
    }
}
