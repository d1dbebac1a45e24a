/// Durations counted into fixed buckets, for Prometheus histograms: one histogram per row (a
/// method, say), all with the same bounds. Recording is a short scan of the bounds and two
/// atomic adds (``AtomicCounters``): no lock, no allocation, so the event loop may record
/// every call.
///
/// ## Who owns what
/// The counters are shared atomics (``AtomicCounters``); the bounds never change.
public final class DurationHistograms: Sendable {
    /// 0.5 ms to 10 s: from a call answered on the loop to an SD card's slowest sync.
    public static let defaultBoundsNanoseconds: [UInt64] = [
        500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000, 100_000_000, 250_000_000,
        500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000,
    ]

    /// Upper bounds of the buckets, in nanoseconds, ascending; a last bucket takes the rest.
    public let boundsNanoseconds: [UInt64]
    public let rows: Int
    /// Per row: a count per bucket (not cumulative; the last one past every bound), then the
    /// sum of the row's durations in nanoseconds.
    private let counters: AtomicCounters
    private var stride: Int { boundsNanoseconds.count + 2 }

    public init(rows: Int = 1, boundsNanoseconds: [UInt64] = defaultBoundsNanoseconds) {
        precondition(zip(boundsNanoseconds, boundsNanoseconds.dropFirst()).allSatisfy { $0 < $1 }, "unsorted bounds")
        self.rows = rows
        self.boundsNanoseconds = boundsNanoseconds
        counters = AtomicCounters(count: rows * (boundsNanoseconds.count + 2))
    }

    /// Counts one duration in `row`.
    public func record(_ nanoseconds: UInt64, row: Int = 0) {
        precondition(row >= 0 && row < rows, "no such row")
        var bucket = 0
        while bucket < boundsNanoseconds.count, nanoseconds > boundsNanoseconds[bucket] { bucket += 1 }
        let base = row * stride
        counters.add(base + bucket)
        counters.add(base + boundsNanoseconds.count + 1, Int(clamping: nanoseconds))
    }

    /// What `row` has counted so far.
    public func snapshot(row: Int = 0) -> Snapshot {
        let base = row * stride
        return Snapshot(
            boundsNanoseconds: boundsNanoseconds,
            counts: (0...boundsNanoseconds.count).map { counters[base + $0] },
            sumNanoseconds: counters[base + boundsNanoseconds.count + 1])
    }

    /// One histogram's figures.
    public struct Snapshot: Sendable, Equatable {
        public var boundsNanoseconds: [UInt64]
        /// Per bucket, not cumulative: one more than there are bounds.
        public var counts: [Int]
        public var sumNanoseconds: Int

        public var count: Int { counts.reduce(0, +) }

        /// How many took at most each bound, then all of them (Prometheus's `le` buckets).
        public var cumulativeCounts: [Int] {
            var total = 0
            return counts.map { count in
                total += count
                return total
            }
        }
    }
}
