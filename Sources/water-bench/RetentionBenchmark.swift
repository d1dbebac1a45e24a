import Foundation
import Glibc
import WaterProtocol
import WaterTransport

/// `water-bench retained`: what the server keeps after it has answered (issue 30 item 1). The
/// release water-server is started on the benchmark's household (10 members of 5 years), every
/// archive loaded by a board, then driven with one kind of call after another, closed loop over
/// 32 connections: calls with no token (what a device with no account can make), GetToday,
/// GetHistory(366) and durable logs. Its private memory (RssAnon) is read after each kind. The
/// server is then restarted on the data those calls left (the logs added entries) with every
/// archive loaded again, and its RssAnon read: what the same data costs when nothing else has
/// happened. Memory kept per call shows as the running figure over the restarted one.
struct RetentionBenchmark: RecordsFigures {
    let directory: String
    /// Calls of each kind: a million unless told otherwise (the figure). The logs go to
    /// the 10 members of 5 years and to 5 newcomers in turn over the 32 connections, so no
    /// member is given more than about 67 000, under the cap of 100 000 with the 18 000 they hold
    /// (5, not 10: with the admin, 16 members is the household's cap).
    let calls: Int

    static let defaultCalls = 1_000_000
    static let newcomers = 5
    var results: [(key: String, value: Double)] = []

    static let connections = 32

    init(directory: String, calls: Int) {
        self.directory = directory
        self.calls = calls
    }

    mutating func run() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        try ServerBenchmark.prepare(data, newcomers: Self.newcomers)

        // Every archive stays loaded for the whole run (no idle sweep in its minutes), as after
        // the restart it is compared with: what is measured is what calls leave behind.
        let options = ["--idle-sweep", "86400"]
        var (server, address) = try ServerBenchmark.startWater(data, options: options)
        defer { server.stop() }
        let tokens = try (1...ServerBenchmark.historic).map { try ServerBenchmark.login(address, "h\($0)").token }
        try Self.loadEveryArchive(address, token: tokens[0])
        record("rss_anon_mib_start", ServerBenchmark.statusMiB("RssAnon:", of: server.pid))

        let kinds: [(name: String, request: (Int, [UInt8]) throws -> [UInt8])] = [
            (
                "no_account",
                { n, _ in try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: UInt64(n), token: []) }
            ),
            (
                "today",
                { n, token in try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: UInt64(n), token: token) }
            ),
            (
                "history_366",
                { n, token in
                    try ServerBenchmark.frame(WaterV1.GetHistoryRequest(days: 366), callID: UInt64(n), token: token)
                }
            ),
        ]
        let perConnection = max(calls / Self.connections, 1)
        for kind in kinds {
            // One encoded request per connection, sent again and again: the server cannot tell.
            let result = try LoadGenerator.run(
                try (0..<Self.connections).map { lane in
                    let request = try kind.request(lane + 2, tokens[lane % tokens.count])
                    return (try ServerBenchmark.handshaken(address), Array(repeating: request, count: perConnection))
                }, framing: .water, serverPID: server.pid)
            record("calls_\(kind.name)", Double(result.operations))
            record("rss_anon_mib_after_\(kind.name)", ServerBenchmark.statusMiB("RssAnon:", of: server.pid))
        }
        let loggers = try tokens + (1...Self.newcomers).map { try ServerBenchmark.login(address, "n\($0)").token }
        let logs = try LoadGenerator.run(
            try (0..<Self.connections).map { lane in
                (
                    try ServerBenchmark.handshaken(address),
                    ServerBenchmark.logRequests(perConnection, token: loggers[lane % loggers.count])
                )
            }, framing: .water, serverPID: server.pid)
        record("calls_durable_log", Double(logs.operations))
        let running = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
        record("rss_anon_mib_after_durable_log", running)

        // The same data, after a restart, every archive loaded.
        server.stop()
        (server, address) = try ServerBenchmark.startWater(data, options: options)
        try Self.loadEveryArchive(address, token: try ServerBenchmark.login(address, "h1").token)
        let restarted = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
        record("rss_anon_mib_restarted", restarted)
        record("rss_anon_running_vs_restarted", running / restarted)
        record("rss_anon_mib_over_restarted", running - restarted)
    }

    /// A board reads every member's archive, so every one is in memory after it.
    static func loadEveryArchive(_ address: HostPort, token: [UInt8]) throws {
        let socket = try ServerBenchmark.handshaken(address)
        defer { socket.close() }
        try MemberProbe.writeAll(
            try ServerBenchmark.frame(WaterV1.GetBoardRequest(), callID: 2, token: token), to: socket)
        guard try MemberProbe.readReplies(1, from: socket).first?.statusCode == .ok else {
            throw WaterBenchError("the board failed")
        }
    }
}
