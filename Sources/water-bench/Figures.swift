import Foundation

/// A benchmark's figures in the order measured. Each is printed to standard error as it is
/// read, so that a run of minutes shows how far it is; `emitResults` prints them all at the end.
protocol RecordsFigures {
    var results: [(key: String, value: Double)] { get set }
}

extension RecordsFigures {
    mutating func record(_ key: String, _ value: Double) {
        results.append((key, value))
        FileHandle.standardError.write(Data("  \(key) = \((value * 100).rounded() / 100)\n".utf8))
    }
}

/// Figures kept by a benchmark that has no state of its own to keep them in.
struct Figures: RecordsFigures {
    var results: [(key: String, value: Double)] = []
}
