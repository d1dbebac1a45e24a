import WaterProtocol
import WaterSync

/// Calls answered, by method and status code, for the wall's `/metrics`. Counted where a call's
/// final reply is known (``Connection``'s dispatch and delivery, on the event loop); read by
/// the thread that answers `/metrics`. One lock, uncontended but for that read.
final class CallCounts: Sendable {
    /// Status codes 0 (OK) to 16 (UNAUTHENTICATED); a code outside them is counted as 2 (UNKNOWN).
    private static let codes = 17
    /// By `method.index * codes + code`.
    private let counts = Locked([Int](repeating: 0, count: MethodTable.shared.methods.count * CallCounts.codes))

    func answered(_ method: MethodDescriptor, _ code: WaterV1.StatusCode) {
        let column = code.rawValue >= 0 && code.rawValue < Self.codes ? Int(code.rawValue) : 2
        counts.withLock { $0[method.index * Self.codes + column] += 1 }
    }

    func add(to text: inout MetricsText) {
        let counts = counts.withLock { $0 }
        let methods = MethodTable.shared.methods
        let samples = counts.indices.filter { counts[$0] > 0 }.map { index in
            let code = WaterV1.StatusCode(rawValue: Int32(index % Self.codes))
            return (
                "method=\"\(methods[index / Self.codes].fullName)\",code=\"\(code.protoName ?? "UNKNOWN")\"",
                counts[index]
            )
        }
        text.add("water_calls_total", .counter, "Calls answered, by method and status code.", samples)
    }
}
