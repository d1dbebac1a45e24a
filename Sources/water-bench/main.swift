// The benchmarks behind `scripts/bench`, and the kill -9 cycles behind `scripts/stress`. Each
// figure is measured against a peer on the same machine in the same run (the raw fdatasync,
// Redis), never against a fixed time.
//
//     water-bench storage|server|hostile|codec [--json] [--dir DIRECTORY]
//     water-bench retained [CALLS] [--json] [--dir DIRECTORY]
//     water-bench ceiling [--json] [--dir DIRECTORY]
//     water-bench stress CYCLES [--dir DIRECTORY]
import Foundation
import WaterClient
import WaterProtocol
import WaterTransport

var arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
arguments.removeAll { $0 == "--json" }
var directory = FileManager.default.currentDirectoryPath
if let index = arguments.firstIndex(of: "--dir"), index + 1 < arguments.count {
    directory = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
/// Where scripts/bench built its LD_PRELOAD shims (the allocation counter, the slow sync).
var shims: String?
if let index = arguments.firstIndex(of: "--shims"), index + 1 < arguments.count {
    shims = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}

/// DESIGN.md section 9's targets for the figures that have one (and issue 12's for the prompt).
let targets: [String: (limit: Double, atMost: Bool)] = [
    "durable_append_vs_fdatasync": (1.3, true),
    "append_cost_ratio_100k_vs_100": (1.2, true),
    "bytes_per_entry": (8, true),
    "log_p50_vs_fsync_plus_rtt_1": (1.3, true),
    "log_ratio_vs_redis_16": (1.0, false),
    "log_ratio_vs_redis_64": (1.0, false),
    "log_cpu_ratio_vs_redis_16": (1.0, true),
    "log_cpu_ratio_vs_redis_64": (1.0, true),
    "heap_allocations_per_log_16": (10, true),
    "slow_sync_log_ratio_vs_redis_16": (1.0, false),
    "slow_sync_p99_ratio_vs_redis_16": (1.2, true),
    "log_p99_us_16": (3000, true),
    "log_p99_us_64": (3000, true),
    "board_ratio_vs_redis_16": (1.0, false),
    "server_rss_anon_mib": (16, true),
    "start_to_first_write_ms": (25, true),
    "client_prompt_wall_ms_p50": (5, true),
    // Issue 18 item 1, `water-bench hostile`.
    "member_p50_us_flood": (5000, true),
    "member_p99_us_flood": (50_000, true),
    "login_after_burst_ms": (1000, true),
    "import_zlib_member_max_ms": (1000, true),
    "import_plain_member_max_ms": (1000, true),
    "import_valid_member_max_ms": (1000, true),
    "import_own_member_max_ms": (1000, true),
    // Issue 30 items 1 and 4, `water-bench hostile`: 20 s of calls without a token (the issue
    // saw +280 MB and 284 MB of log in 30 s). At most 30 lines a 10 s (`PeerLogBudget`) of
    // about 150 bytes, and one line of what was left out.
    "no_account_rss_anon_mib_growth": (2, true),
    "no_account_log_bytes": (16_384, true),
    // Issue 30 item 3, `water-bench hostile`: another member's GetToday while one pipelines reads.
    "reads_board_history_member_p50_ms": (5, true),
    "reads_board_history_member_p99_ms": (50, true),
    "reads_history_entries_member_p50_ms": (5, true),
    "reads_history_entries_member_p99_ms": (50, true),
    "reads_todos_member_p50_ms": (5, true),
    "reads_todos_member_p99_ms": (50, true),
    "reads_year_member_p50_ms": (5, true),
    "reads_year_member_p99_ms": (50, true),
    "reads_past_board_member_p50_ms": (5, true),
    "reads_past_board_member_p99_ms": (50, true),
    // Issue 30 item 1, `water-bench retained`: memory kept per call, within 1.25x or +16 MiB of
    // a restart on the same data (either one met is the target met).
    "rss_anon_running_vs_restarted": (1.25, true),
    "rss_anon_mib_over_restarted": (16, true),
]

func emitResults(_ results: [(key: String, value: Double)]) {
    if json {
        let fields = results.map { "\"\($0.key)\": \(($0.value * 1000).rounded() / 1000)" }
        print("{" + fields.joined(separator: ", ") + "}")
        return
    }
    // Names longer than 32 characters widen the column instead of being cut.
    let width = results.map(\.key.count).reduce(32, max)
    for (key, value) in results {
        var line = "\(key.padding(toLength: width, withPad: " ", startingAt: 0)) \((value * 100).rounded() / 100)"
        if let target = targets[key] {
            let met = target.atMost ? value <= target.limit : value >= target.limit
            line += "  (target \(target.atMost ? "<=" : ">=") \(target.limit): \(met ? "met" : "MISSED"))"
        }
        print(line)
    }
}

/// Runs `body`; a failure ends the process with the error on standard error.
func orExit(_ body: () throws -> Void) {
    do {
        try body()
    } catch {
        FileHandle.standardError.write(Data("water-bench: \(error)\n".utf8))
        exit(1)
    }
}

switch arguments.first {
case "log-load" where arguments.count == 5:
    // For profiling a running server: water-bench log-load HOST:PORT USER PASSWORD COUNT
    orExit {
        let client = try WaterClient(
            configuration: ClientConfiguration(
                server: HostPort(parsing: arguments[1], defaultPort: 7420)!, security: .plaintext))
        try client.login(username: arguments[2], password: arguments[3])
        for _ in 0..<(Int(arguments[4]) ?? 1000) {
            _ = try client.call(WaterV1.LogWaterRequest(entryID: client.newID().description, amountMl: 250))
        }
    }
case "prepare" where arguments.count == 2:
    // For profiling: the benchmark's data directory (10 members h1...h10 of 5 years each,
    // password bench-password), made at DIRECTORY.
    // water-bench prepare DIRECTORY
    orExit { try ServerBenchmark.prepare(arguments[1]) }
case "drive" where arguments.count == 6:
    // For profiling a running server with the benchmark's load generator; connections log in
    // as the users in turn:
    // water-bench drive HOST:PORT USER[,USER...] PASSWORD CONNECTIONS LOGS_PER_CONNECTION
    orExit {
        let address = try require(HostPort(parsing: arguments[1], defaultPort: 7420), "HOST:PORT")
        let tokens = try arguments[2].split(separator: ",").map {
            try ServerBenchmark.login(address, String($0), password: arguments[3]).token
        }
        let connections = Int(arguments[4]) ?? 16
        let result = try LoadGenerator.run(
            try (0..<connections).map { index in
                (
                    try ServerBenchmark.handshaken(address),
                    ServerBenchmark.logRequests(Int(arguments[5]) ?? 1000, token: tokens[index % tokens.count])
                )
            }, framing: .water, serverPID: 0)
        print(
            "logs \(result.operations) per_s \(Int(result.perSecond)) p50_us \(Int(result.p50)) p99_us \(Int(result.p99))"
        )
    }
case "server":
    var benchmark = ServerBenchmark(directory: directory, shims: shims)
    orExit { try benchmark.run() }
    emitResults(benchmark.results)
case "hostile":
    var benchmark = HostileBenchmark(directory: directory)
    orExit { try benchmark.run() }
    emitResults(benchmark.results)
    if !json { benchmark.notes.forEach { print($0) } }
case "retained" where arguments.count <= 2:
    var benchmark = RetentionBenchmark(
        directory: directory,
        calls: arguments.count == 2
            ? Int(arguments[1]) ?? RetentionBenchmark.defaultCalls : RetentionBenchmark.defaultCalls)
    orExit { try benchmark.run() }
    emitResults(benchmark.results)
case "ceiling":
    var results: [(key: String, value: Double)] = []
    orExit { results = try CeilingBenchmark.run(directory: directory) }
    emitResults(results)
case "codec":
    var results: [(key: String, value: Double)] = []
    orExit { try CodecBenchmark.run { results.append(($0, $1)) } }
    emitResults(results)
case "storage":
    var benchmark = StorageBenchmark(directory: directory)
    orExit { try benchmark.run() }
    emitResults(benchmark.results)
case "stress" where arguments.count == 2:
    guard let cycles = Int(arguments[1]), cycles > 0 else {
        FileHandle.standardError.write(Data("water-bench: stress takes a number of cycles\n".utf8))
        exit(64)
    }
    var totals = StressTest.Totals()
    orExit { totals = try StressTest(directory: directory, cycles: cycles).run() }
    // The last line: what scripts/stress reports.
    print(
        "acknowledged \(totals.acknowledged) lost \(totals.lost) duplicated \(totals.duplicated) damaged \(totals.damaged)"
    )
    exit(totals.lost + totals.duplicated + totals.damaged == 0 ? 0 : 1)
default:
    FileHandle.standardError.write(
        Data(
            "usage: water-bench storage|server|hostile|codec [--json] [--dir DIRECTORY] | retained [CALLS] | ceiling | stress CYCLES [--dir DIRECTORY]\n"
                .utf8))
    exit(64)
}
