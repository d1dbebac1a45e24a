import WaterProtocol
import WaterSync

/// Calls answered, by method and status code, and how long each took, for the wall's
/// `/metrics`. Counted on the event loop where a call's final reply is known (``Connection``'s
/// dispatch and delivery): two or three relaxed atomic adds, no lock, no allocation. Read by
/// the thread that answers `/metrics`.
///
/// ## Who owns what
/// The counters are atomics (``AtomicCounters``, ``DurationHistograms``), added to by the loop
/// and read by `/metrics`; nothing else is mutable.
final class CallCounts: Sendable {
    /// Status codes 0 (OK) to 16 (UNAUTHENTICATED); a code outside them is counted as 2 (UNKNOWN).
    private static let codes = 17
    /// By `method.index * codes + code`.
    private let counts = AtomicCounters(count: MethodTable.shared.methods.count * CallCounts.codes)
    /// By `method.index`: from the call's dispatch to its answer (a unary call's only reply, or
    /// its refusal). A stream's lifetime is not a latency: streams are left out.
    private let latency = DurationHistograms(rows: MethodTable.shared.methods.count)

    /// A call of `method` ended with `code`, `nanoseconds` after it was dispatched (nil when
    /// unknown, or when it is a stream).
    func answered(_ method: MethodDescriptor, _ code: WaterV1.StatusCode, after nanoseconds: UInt64? = nil) {
        let column = code.rawValue >= 0 && code.rawValue < Self.codes ? Int(code.rawValue) : 2
        counts.add(method.index * Self.codes + column)
        if let nanoseconds, !method.isServerStreaming { latency.record(nanoseconds, row: method.index) }
    }

    func add(to text: inout MetricsText) {
        let methods = MethodTable.shared.methods
        let samples = (0..<counts.count).compactMap { index -> (String, Int)? in
            let count = counts[index]
            guard count > 0 else { return nil }
            let code = WaterV1.StatusCode(rawValue: Int32(index % Self.codes))
            return ("method=\"\(methods[index / Self.codes].fullName)\",code=\"\(code.protoName ?? "UNKNOWN")\"", count)
        }
        text.add("water_calls_total", .counter, "Calls answered, by method and status code.", samples)
        let histograms = methods.indices.compactMap { index -> (String, DurationHistograms.Snapshot)? in
            let histogram = latency.snapshot(row: index)
            return histogram.count > 0 ? ("method=\"\(methods[index].fullName)\"", histogram) : nil
        }
        text.add(
            histogram: "water_call_duration_seconds",
            "From a call's dispatch to its answer, by method (unary calls; streams are left out).", histograms)
    }
}
