// The benchmarks behind `scripts/bench`. Each figure is measured against a peer on the same
// machine in the same run (the raw fdatasync, Redis), never against a fixed time.
//
//     water-bench storage [--json] [--dir DIRECTORY]
import Foundation

var arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
arguments.removeAll { $0 == "--json" }
var directory = FileManager.default.currentDirectoryPath
if let index = arguments.firstIndex(of: "--dir"), index + 1 < arguments.count {
    directory = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}

/// DESIGN.md section 9's targets for the figures that have one.
let targets: [String: (limit: Double, atMost: Bool)] = [
    "durable_append_vs_fdatasync": (1.3, true),
    "append_cost_ratio_100k_vs_100": (1.2, true),
    "bytes_per_entry": (8, true),
]

func emitResults(_ results: [(key: String, value: Double)]) {
    if json {
        let fields = results.map { "\"\($0.key)\": \(($0.value * 1000).rounded() / 1000)" }
        print("{" + fields.joined(separator: ", ") + "}")
        return
    }
    for (key, value) in results {
        var line = "\(key.padding(toLength: 32, withPad: " ", startingAt: 0)) \((value * 100).rounded() / 100)"
        if let target = targets[key] {
            let met = target.atMost ? value <= target.limit : value >= target.limit
            line += "  (target \(target.atMost ? "<=" : ">=") \(target.limit): \(met ? "met" : "MISSED"))"
        }
        print(line)
    }
}

switch arguments.first {
case "storage":
    var benchmark = StorageBenchmark(directory: directory)
    do {
        try benchmark.run()
    } catch {
        FileHandle.standardError.write(Data("water-bench: \(error)\n".utf8))
        exit(1)
    }
    emitResults(benchmark.results)
default:
    FileHandle.standardError.write(Data("usage: water-bench storage [--json] [--dir DIRECTORY]\n".utf8))
    exit(64)
}
