import Foundation
import Glibc
import WaterClient
import WaterCore
import WaterProtocol
import WaterServer
import WaterStore
import WaterTLS
import WaterTestSupport
import WaterTransport

/// `water-bench server`: the real water-server binary against redis-server (appendfsync
/// always) side by side in one run, over loopback only. Both processes are stopped by pid.
struct ServerBenchmark: RecordsFigures {
    let directory: String
    /// Where scripts/bench built the LD_PRELOAD shims: the allocation counter and the slow sync.
    let shims: String?
    var results: [(key: String, value: Double)] = []
    static let password = "bench-password"
    static let historic = 10

    init(directory: String, shims: String?) {
        self.directory = directory
        self.shims = shims
    }

    mutating func run() throws {
        try CodecBenchmark.run { record($0, $1) }
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        try Self.prepare(data)

        let start = Measure.now()
        let (server, address) = try Self.startWater(data)
        defer { server.stop() }
        try measureStartAndMemory(server, address, since: start)

        let redis = try Self.startRedis(scratch.path)
        defer { redis.stop() }
        let tokens = try (1...Self.historic).map { try Self.login(address, "h\($0)").token }
        let plaintext16 = try compareLogs(server, address, redis: redis, tokens: tokens, scratch: scratch.path)
        try compareBoards(server, address, redis: redis, tokens: tokens)
        try measureClients(address, scratch: scratch.path)

        // The cost of TLS: the same server and data, now serving TLS, under the same load.
        server.stop()
        try measureTLS(data, tokens: tokens, scratch: scratch.path, plaintext16: plaintext16)
        redis.stop()
        if let shims {
            try measureAllocations(data, shims: shims, tokens: tokens, scratch: scratch.path)
            try measureSlowSync(data, shims: shims, tokens: tokens, scratch: scratch.path)
        }
    }

    /// From the server's start to its first acknowledged write; then its memory with every
    /// archive loaded (a board reads them all) and 50 connections open.
    private mutating func measureStartAndMemory(_ server: Spawned, _ address: HostPort, since start: UInt64) throws {
        let first = try Self.login(address, "h1")
        _ = try first.call(WaterV1.LogWaterRequest(entryID: first.newID().description, amountMl: 250))
        record("start_to_first_write_ms", Double(Measure.now() - start) / 1e6)
        _ = try first.call(WaterV1.GetBoardRequest())
        let idle = try (0..<50).map { _ in
            try WaterConnection(configuration: ClientConfiguration(server: address, security: .plaintext))
        }
        // DESIGN.md's target is private memory (RssAnon); the whole resident set (VmRSS) also
        // counts the binary's own pages, shared with the page cache.
        record("server_rss_anon_mib", Self.statusMiB("RssAnon:", of: server.pid))
        record("server_rss_mib", Self.statusMiB("VmRSS:", of: server.pid))
        withExtendedLifetime(idle) {}
    }

    /// Durable logs at 1, 16 and 64 connections, water-server and Redis driven by the same load
    /// generator (pre-encoded requests, closed loop, one thread); the 16-connection result.
    private mutating func compareLogs(
        _ server: Spawned, _ address: HostPort, redis: Spawned, tokens: [[UInt8]], scratch: String
    ) throws -> LoadGenerator.Result? {
        let redisPort = UInt16(redis.arguments[1])!
        let setup = try RedisClient(port: redisPort)
        let sha = try Self.loadScript(setup)
        for member in 1...Self.historic { try setup.command(["ZADD", "board", "\(member * 100)", "h\(member)"]) }
        let rtt = try Self.pingMicroseconds(setup)
        let fsync = Self.fdatasyncMicroseconds(in: scratch)
        let logScript = Self.redisLogRequest(script: sha)
        var plaintext16: LoadGenerator.Result?
        for connections in [1, 16, 64] {
            let perConnection = connections == 1 ? 4000 : (connections == 16 ? 1500 : 400)
            let water = try Self.runLogs(
                server, address, connections: connections, times: perConnection, tokens: tokens)
            let peer = try Self.runRedis(
                redis, port: redisPort, connections: connections, sending: logScript, times: perConnection)
            recordLogs(
                water, peer, connections: connections,
                [
                    ("per_s", \.perSecond), ("p50_us", \.p50), ("p99_us", \.p99),
                    ("server_cpu_us", \.serverCPUMicroseconds),
                ])
            record("log_ratio_vs_redis_\(connections)", water.perSecond / peer.perSecond)
            record("log_cpu_ratio_vs_redis_\(connections)", water.serverCPUMicroseconds / peer.serverCPUMicroseconds)
            if connections == 16 { plaintext16 = water }
            if connections == 1 {
                record("fdatasync_plus_rtt_us", fsync + rtt)
                record("log_p50_vs_fsync_plus_rtt_1", water.p50 / (fsync + rtt))
            }
        }
        return plaintext16
    }

    /// The same figures of water-server's logs and Redis's, side by side:
    /// `<prefix>log_<figure>_<connections>` and `<prefix>redis_log_<figure>_<connections>`.
    private mutating func recordLogs(
        _ water: LoadGenerator.Result, _ peer: LoadGenerator.Result, _ prefix: String = "", connections: Int,
        _ figures: [(name: String, value: KeyPath<LoadGenerator.Result, Double>)]
    ) {
        for (server, result) in [("", water), ("redis_", peer)] {
            for figure in figures {
                record("\(prefix)\(server)log_\(figure.name)_\(connections)", result[keyPath: figure.value])
            }
        }
    }

    /// The weekly board at 16 connections, against a Redis sorted set's ZREVRANGE.
    private mutating func compareBoards(_ server: Spawned, _ address: HostPort, redis: Spawned, tokens: [[UInt8]])
        throws
    {
        let boardRequest = try Self.frame(WaterV1.GetBoardRequest(), callID: 1, token: tokens[0])
        let boards = try LoadGenerator.run(
            try (0..<16).map { _ in (try Self.handshaken(address), Array(repeating: boardRequest, count: 1500)) },
            framing: .water, serverPID: server.pid)
        let peerBoards = try Self.runRedis(
            redis, port: UInt16(redis.arguments[1])!, connections: 16,
            sending: RedisClient.encode(["ZREVRANGE", "board", "0", "-1", "WITHSCORES"]), times: 1500)
        record("board_per_s_16", boards.perSecond)
        record("board_server_cpu_us_16", boards.serverCPUMicroseconds)
        record("redis_board_per_s_16", peerBoards.perSecond)
        record("redis_board_server_cpu_us_16", peerBoards.serverCPUMicroseconds)
        record("board_ratio_vs_redis_16", boards.perSecond / peerBoards.perSecond)
    }

    /// Whole water-client processes: a `log`, and `prompt` beside `--version`.
    private mutating func measureClients(_ address: HostPort, scratch: String) throws {
        record(
            "client_log_wall_ms",
            try Self.clientWallTime(address, scratch: scratch, environment: ["WATER_PLAINTEXT": "1"]))
        // `water-client prompt`, after those logs filled its cache: the target is under 5 ms,
        // process start to exit. `--version` does nothing but start and exit: the floor.
        let prompt = try Self.promptWallTime(scratch: scratch)
        record("client_prompt_wall_ms_p50", prompt.p50)
        record("client_prompt_wall_ms_p90", prompt.p90)
        record("client_version_wall_ms_p50", prompt.floor)
        // The absolute figure moves with the machine (process start is most of it); the ratio
        // to --version, measured in the same run, is what the prompt's own work costs.
        record("client_prompt_vs_version_p50", prompt.p50 / prompt.floor)
    }

    /// The same data served over TLS: 16 connections logging, and a client's log, full and resumed.
    private mutating func measureTLS(
        _ data: String, tokens: [[UInt8]], scratch: String, plaintext16: LoadGenerator.Result?
    ) throws {
        let (secure, secureAddress) = try Self.startWater(data, plaintext: false)
        defer { secure.stop() }
        let fingerprint = try Fingerprint(certificateAt: "\(data)/tls/certificate.pem")
        let secureLanes = try (0..<16).map { index in
            (try Self.handshaken(secureAddress, security: .pinned(fingerprint)), tokens[index % Self.historic])
        }
        let overTLS = try LoadGenerator.run(
            secureLanes.map { ($0.0.socket, Self.logRequests(1500, token: $0.1)) },
            tls: secureLanes.map { $0.0.tls! }, framing: .water, serverPID: secure.pid)
        record("tls_log_per_s_16", overTLS.perSecond)
        record("tls_log_p99_us_16", overTLS.p99)
        record("tls_log_server_cpu_us_16", overTLS.serverCPUMicroseconds)
        if let plaintext16 {
            record("tls_vs_plaintext_log_per_s_16", overTLS.perSecond / plaintext16.perSecond)
            record("tls_vs_plaintext_cpu_16", overTLS.serverCPUMicroseconds / plaintext16.serverCPUMicroseconds)
        }
        let trust = ["WATER_TLS_FINGERPRINT": fingerprint.description]
        record(
            "client_log_wall_ms_tls",
            try Self.clientWallTime(secureAddress, scratch: scratch + "/tls", environment: trust))
        record(
            "client_log_wall_ms_tls_resumed",
            try Self.clientWallTime(
                secureAddress, scratch: scratch + "/tls-resumed",
                environment: trust.merging(["WATER_TLS_RESUME": "1"]) { $1 }))
    }

    /// Heap allocations per durable log at 16 connections: the server started with the
    /// benchmark's counting shim (LD_PRELOAD), counted over the logs after a warm-up.
    private mutating func measureAllocations(_ data: String, shims: String, tokens: [[UInt8]], scratch: String)
        throws
    {
        let counts = "\(scratch)/allocation-counts"
        let (server, address) = try Self.startWater(
            data, environment: ["LD_PRELOAD": "\(shims)/count_allocations.so", "WATER_ALLOC_COUNTS": counts])
        defer { server.stop() }
        func lanes(_ count: Int) throws -> [(Socket, [[UInt8]])] {
            try (0..<16).map {
                (try Self.handshaken(address), Self.logRequests(count, token: tokens[$0 % Self.historic]))
            }
        }
        _ = try LoadGenerator.run(try lanes(200), framing: .water, serverPID: server.pid)
        let measured = try lanes(1500)
        let before = Self.allocationCount(counts)
        let run = try LoadGenerator.run(measured, framing: .water, serverPID: server.pid)
        record("heap_allocations_per_log_16", Double(Self.allocationCount(counts) - before) / Double(run.operations))
    }

    /// Both servers with every fsync and fdatasync made 3 ms slower (the shim), as on a Pi's SD
    /// card: 16 connections logging, side by side.
    private mutating func measureSlowSync(_ data: String, shims: String, tokens: [[UInt8]], scratch: String) throws {
        let slow = ["LD_PRELOAD": "\(shims)/slow_sync.so", "WATER_SLOW_SYNC_US": "3000"]
        let (server, address) = try Self.startWater(data, environment: slow)
        defer { server.stop() }
        let redisData = "\(scratch)/redis-slow-sync"
        _ = mkdir(redisData, 0o700)
        let redis = try Self.startRedis(redisData, environment: slow)
        defer { redis.stop() }
        let redisPort = UInt16(redis.arguments[1])!
        let sha = try Self.loadScript(try RedisClient(port: redisPort))
        let water = try Self.runLogs(server, address, connections: 16, times: 300, tokens: tokens)
        let logScript = Self.redisLogRequest(script: sha)
        let peer = try Self.runRedis(redis, port: redisPort, connections: 16, sending: logScript, times: 300)
        recordLogs(water, peer, "slow_sync_", connections: 16, [("per_s", \.perSecond), ("p99_us", \.p99)])
        record("slow_sync_log_ratio_vs_redis_16", water.perSecond / peer.perSecond)
        record("slow_sync_p99_ratio_vs_redis_16", water.p99 / peer.p99)
    }
}
