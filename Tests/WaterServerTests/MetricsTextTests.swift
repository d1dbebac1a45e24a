import Testing
import WaterSync

@testable import WaterServer

/// `/metrics`' histograms: the buckets a duration falls in, and Prometheus's text for them.
@Suite("Metrics text and histograms")
struct MetricsTextTests {
    @Test("a duration counts in the first bucket whose bound it does not pass; past the last, in +Inf")
    func buckets() {
        let histograms = DurationHistograms(rows: 2, boundsNanoseconds: [1_000_000, 10_000_000])
        for nanoseconds: UInt64 in [0, 1_000_000, 1_000_001, 10_000_000, 20_000_000] {
            histograms.record(nanoseconds, row: 1)
        }
        let row = histograms.snapshot(row: 1)
        #expect(row.counts == [2, 2, 1] && row.cumulativeCounts == [2, 4, 5])
        #expect(row.count == 5 && row.sumNanoseconds == 32_000_001)
        #expect(histograms.snapshot(row: 0).count == 0)
    }

    @Test("a histogram's text: cumulative le buckets ending in +Inf, then _sum in seconds and _count")
    func histogramText() {
        let histograms = DurationHistograms(boundsNanoseconds: [500_000, 2_500_000])
        histograms.record(400_000)
        histograms.record(3_000_000)
        var text = MetricsText()
        text.add(histogram: "water_x_seconds", "How long.", [("method=\"m\"", histograms.snapshot())])
        #expect(
            text.text == """
                # HELP water_x_seconds How long.
                # TYPE water_x_seconds histogram
                water_x_seconds_bucket{method="m",le="0.0005"} 1
                water_x_seconds_bucket{method="m",le="0.0025"} 1
                water_x_seconds_bucket{method="m",le="+Inf"} 2
                water_x_seconds_sum{method="m"} 0.0034
                water_x_seconds_count{method="m"} 2

                """)
        var bare = MetricsText()
        bare.add(
            histogram: "water_y_seconds", "Unlabelled.", [("", DurationHistograms(boundsNanoseconds: [1]).snapshot())])
        #expect(
            bare.text.contains(
                "water_y_seconds_bucket{le=\"+Inf\"} 0\nwater_y_seconds_sum 0.0\nwater_y_seconds_count 0\n"))
    }

    @Test("atomic counters add from many threads at once without losing any")
    func countersUnderContention() async {
        let counters = AtomicCounters(count: 3)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counters.add(1) } }
            }
        }
        #expect(counters[0] == 0 && counters[1] == 80_000 && counters[2] == 0)
    }
}
