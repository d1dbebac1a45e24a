import WaterSync

/// Figures in Prometheus's text exposition format (version 0.0.4), for the kitchen wall's
/// `/metrics`: a `# HELP` and `# TYPE` line per metric, then its samples. Names and label values
/// are the server's own words (methods, statuses), never a member's data.
public struct MetricsText: Sendable {
    public private(set) var text = ""

    public init() {}

    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// One metric of one sample.
    public mutating func add(_ name: String, _ kind: Kind, _ help: String, _ value: Int) {
        add(name, kind, help, [("", value)])
    }

    /// One metric of several samples, each with its labels written `key="value",...` (escaped
    /// by the caller's choice of words: no quote, backslash or newline in them).
    public mutating func add(_ name: String, _ kind: Kind, _ help: String, _ samples: [(labels: String, value: Int)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples {
            text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(labels)} \(value)\n"
        }
    }

    /// A histogram of durations, in seconds, of one or several label sets (`key="value",...`):
    /// cumulative `_bucket{le=...}` samples, `+Inf` last, then `_sum` and `_count`.
    public mutating func add(
        histogram name: String, _ help: String, _ samples: [(labels: String, histogram: DurationHistograms.Snapshot)]
    ) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (labels, histogram) in samples {
            let prefix = labels.isEmpty ? "" : labels + ","
            let bounds = histogram.boundsNanoseconds.map { Self.seconds($0) } + ["+Inf"]
            for (bound, count) in zip(bounds, histogram.cumulativeCounts) {
                text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(count)\n"
            }
            let braces = labels.isEmpty ? "" : "{\(labels)}"
            text += "\(name)_sum\(braces) \(Self.seconds(UInt64(max(histogram.sumNanoseconds, 0))))\n"
            text += "\(name)_count\(braces) \(histogram.count)\n"
        }
    }

    /// Nanoseconds as seconds in Prometheus's float syntax ("0.0025", "10.0").
    static func seconds(_ nanoseconds: UInt64) -> String {
        "\(Double(nanoseconds) / 1e9)"
    }
}

/// The server's figures, as the running server gives them (``Server``), for a publisher beside
/// the API (the wall's `/metrics`). Set once the server is made; empty before.
final class MetricsSource: Sendable {
    private let source = Locked<(@Sendable () -> MetricsText)?>(nil)

    func provide(_ body: @escaping @Sendable () -> MetricsText) {
        source.withLock { $0 = body }
    }

    func text() -> MetricsText {
        source.withLock { $0 }?() ?? MetricsText()
    }
}
