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

func emitResults(_ results: [(key: String, value: Double)]) {
    if json {
        let fields = results.map { "\"\($0.key)\": \(($0.value * 1000).rounded() / 1000)" }
        print("{" + fields.joined(separator: ", ") + "}")
    } else {
        for (key, value) in results { print("\(key)\t\((value * 100).rounded() / 100)") }
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
