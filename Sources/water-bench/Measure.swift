import Glibc

/// Wall-clock time and simple statistics for the benchmarks.
enum Measure {
    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// How long `body` takes, in microseconds.
    static func microseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return Double(now() - start) / 1000
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p + 0.5))]
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }
}

/// A directory for one benchmark on the disk under test, removed afterwards.
struct ScratchDirectory {
    let path: String

    init(under parent: String) {
        var template = Array("\(parent)/water-bench-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func remove() {
        _ = system("rm -rf '\(path)'")
    }

    /// Total size of the regular files under `directory`.
    static func bytes(under directory: String) -> Int {
        guard let stream = popen("du -sb --apparent-size '\(directory)'", "r") else { return 0 }
        defer { pclose(stream) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, 256, stream) != nil else { return 0 }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int(line.split(separator: "\t").first ?? "") ?? 0
    }
}
