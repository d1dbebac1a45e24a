import Foundation
import Testing
import WaterTestSupport

/// The heap allocations per message of the codec's hot path, as `water-codec-allocations`
/// counts them: in a process of its own, one thread, after a warm-up, so the counts are exact
/// and the same every run (no timing in it).
@Suite("Heap allocations per message")
struct AllocationTests {
    /// The probe's counts by name (`arena.reply.encode: 0.0`), or nil when it cannot count
    /// (a sanitizer build, whose runtime owns malloc).
    private static func counts() throws -> [String: Double]? {
        let executable = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        ).deletingLastPathComponent().appendingPathComponent("water-codec-allocations").path
        try #require(
            FileManager.default.isExecutableFile(atPath: executable),
            "build the package's executables first (swift build --build-tests)")
        let run = try ChildProcess.run(executable, ["1000"])
        #expect(run.status == 0, "\(run.error)")
        guard !run.output.contains("counting: unavailable") else { return nil }
        var counts: [String: Double] = [:]
        for line in run.output.split(separator: "\n") {
            let parts = line.split(separator: ":")
            if parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespaces)) {
                counts[String(parts[0])] = value
            }
        }
        return counts
    }

    @Test("the server's path: a LogWater request costs one allocation (its entry id's String), the reply none")
    func serverPath() throws {
        guard let counts = try Self.counts() else { return }
        #expect(counts["arena.request.decode"] == 1)
        #expect(counts["arena.reply.encode"] == 0)
    }

    @Test("the array API stays within what it costs now (it was 20, 15, 30 and 16 before the arena)")
    func arrayPath() throws {
        guard let counts = try Self.counts() else { return }
        #expect(try #require(counts["arrays.request.encode"]) <= 7)
        #expect(try #require(counts["arrays.request.decode"]) <= 10)
        #expect(try #require(counts["arrays.reply.encode"]) <= 7)
        #expect(try #require(counts["arrays.reply.decode"]) <= 9)
    }
}
