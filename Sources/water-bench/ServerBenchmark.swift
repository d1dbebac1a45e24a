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
import WaterZoneInfo

/// `water-bench server`: the real water-server binary against redis-server (appendfsync
/// always) side by side in one run, over loopback only. Both processes are stopped by pid.
struct ServerBenchmark {
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

    private mutating func record(_ key: String, _ value: Double) {
        results.append((key, value))
        FileHandle.standardError.write(Data("  \(key) = \((value * 100).rounded() / 100)\n".utf8))
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
        let logScript = RedisClient.encode(["EVALSHA", sha, "2", "log:h1", "board", "250", "h1", "{\"ml\":250}"])
        var plaintext16: LoadGenerator.Result?
        for connections in [1, 16, 64] {
            let perConnection = connections == 1 ? 4000 : (connections == 16 ? 1500 : 400)
            let water = try Self.runLogs(
                server, address, connections: connections, times: perConnection, tokens: tokens)
            let peer = try Self.runRedis(
                redis, port: redisPort, connections: connections, sending: logScript, times: perConnection)
            record("log_per_s_\(connections)", water.perSecond)
            record("log_p50_us_\(connections)", water.p50)
            record("log_p99_us_\(connections)", water.p99)
            record("log_server_cpu_us_\(connections)", water.serverCPUMicroseconds)
            record("redis_log_per_s_\(connections)", peer.perSecond)
            record("redis_log_p50_us_\(connections)", peer.p50)
            record("redis_log_p99_us_\(connections)", peer.p99)
            record("redis_log_server_cpu_us_\(connections)", peer.serverCPUMicroseconds)
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
        let logScript = RedisClient.encode(["EVALSHA", sha, "2", "log:h1", "board", "250", "h1", "{\"ml\":250}"])
        let peer = try Self.runRedis(redis, port: redisPort, connections: 16, sending: logScript, times: 300)
        record("slow_sync_log_per_s_16", water.perSecond)
        record("slow_sync_log_p99_us_16", water.p99)
        record("slow_sync_redis_log_per_s_16", peer.perSecond)
        record("slow_sync_redis_log_p99_us_16", peer.p99)
        record("slow_sync_log_ratio_vs_redis_16", water.perSecond / peer.perSecond)
        record("slow_sync_p99_ratio_vs_redis_16", water.p99 / peer.p99)
    }

    /// The closed loop of logs: `connections` handshaken sockets, each logging `times` times as
    /// one of the historic members.
    static func runLogs(
        _ server: Spawned, _ address: HostPort, connections: Int, times: Int, tokens: [[UInt8]]
    ) throws -> LoadGenerator.Result {
        try LoadGenerator.run(
            try (0..<connections).map {
                (try Self.handshaken(address), Self.logRequests(times, token: tokens[$0 % Self.historic]))
            }, framing: .water, serverPID: server.pid)
    }

    /// The same closed loop against Redis: `connections` sockets, each sending `request` `times` times.
    static func runRedis(
        _ redis: Spawned, port: UInt16, connections: Int, sending request: [UInt8], times: Int
    ) throws -> LoadGenerator.Result {
        try LoadGenerator.run(
            try (0..<connections).map { _ in
                (
                    try Socket.connect(to: HostPort(host: "127.0.0.1", port: port)),
                    Array(repeating: request, count: times)
                )
            }, framing: .redis, serverPID: redis.pid)
    }

    /// The release server on `data`, on a free loopback port: plaintext unless told otherwise.
    static func startWater(
        _ data: String, plaintext: Bool = true, environment: [String: String] = [:], options: [String] = []
    ) throws -> (Spawned, HostPort) {
        let server = try Spawned(
            productsDirectory + "/water-server",
            [
                "serve", "--data", data, "--listen", "127.0.0.1:0", "--password-strength", "minimum",
                "--max-connections", "1024", "--max-per-address", "1024", "--time-zone", "UTC",
            ] + (plaintext ? ["--plaintext"] : []) + options, environment: environment)
        let address = try require(
            HostPort(parsing: server.firstLine.replacingOccurrences(of: "listening on ", with: ""), defaultPort: 0),
            "the listening address")
        return (server, address)
    }

    /// redis-server with `appendfsync always` on a free loopback port, its files in `directory`,
    /// with the log-a-drink script loaded (it reads the AOF back, script and all).
    static func startRedis(_ directory: String, environment: [String: String] = [:]) throws -> Spawned {
        try Spawned(
            "/usr/bin/redis-server",
            [
                "--port", "\(Self.freePort())", "--bind", "127.0.0.1", "--dir", directory, "--save", "",
                "--appendonly", "yes", "--appendfsync", "always",
            ], readyText: "Ready to accept connections", environment: environment)
    }

    /// The count the allocation shim keeps in `path`.
    static func allocationCount(_ path: String) -> UInt64 {
        guard let bytes = FileManager.default.contents(atPath: path), bytes.count >= 8 else { return 0 }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    // MARK: Preparation

    /// A data directory with 10 members of 5 years each (about 18 000 entries apiece), all
    /// with the same password. The connections of the load phases log in as them in turn, as
    /// Redis's are given the same 10-member board. `newcomers` more members, `n1`, `n2`, ...,
    /// have no history yet: room under the caps for a load of a million logs.
    static func prepare(_ data: String, newcomers: Int = 0) throws {
        _ = try AdminCommands.initialize(
            dataDirectory: data, admin: "admin", password: Self.password, timeZone: .utc,
            strength: .minimum, logger: .silent)
        let store = try FileArchiveStore(
            path: data, options: StoreOptions(timeZones: ZoneInfo.system), owner: "water-bench")
        defer { store.close() }
        let hash = PasswordHasher(strength: .minimum).hashNow(Self.password)!
        func add(_ name: String) throws -> Archive<MemberArchive> { try addMember(name, to: store, hash: hash) }
        for name in (0..<newcomers).map({ "n\($0 + 1)" }) { _ = try add(name) }
        for (index, name) in (1...Self.historic).map({ "h\($0)" }).enumerated() {
            let archive = try add(name)
            var history = RealisticHistory(seed: UInt64(index))
            let entries = history.entries(
                days: 5 * 365, startingAt: UnixTime.nowMilliseconds() - Int64(5 * 365 + 1) * 86_400_000)
            for chunk in stride(from: 0, to: entries.count, by: 2000) {
                try archive.commitAndWait { _ in
                    entries[chunk..<min(chunk + 2000, entries.count)].map { .water(.logged($0)) }
                }
            }
            archive.compact()
        }
        store.flush()
    }

    /// Adds member `name` (password hash `hash`) and makes their archive.
    static func addMember(_ name: String, to store: FileArchiveStore, hash: String) throws -> Archive<MemberArchive> {
        let id: UInt64 = try store.accounts.commitAndWait(
            { book in
                [
                    try book.validateAdd(
                        username: name, displayName: name, role: .member, timeZone: .utc, passwordHash: hash, now: 0)
                ]
            }, result: { $0.account(named: name)!.id })
        return try store.createMember(id)
    }

    // MARK: Load

    /// A raw connection past the handshake, for the load generator.
    static func handshaken(_ address: HostPort) throws -> Socket {
        try handshaken(address, security: .plaintext).socket
    }

    /// A raw connection past TLS (unless `security` is plaintext) and the protocol's handshake.
    static func handshaken(_ address: HostPort, security: ClientConfiguration.Security) throws -> (
        socket: Socket, tls: TLSSession?
    ) {
        let socket = try Socket.connect(to: address)
        let tls =
            security == .plaintext
            ? nil
            : try WaterConnection.handshakeTLS(ClientConfiguration(server: address, security: security), on: socket)
        var hello = try frame(
            WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version, clientName: "water-bench"),
            callID: 1, token: [])
        if let tls {
            try tls.write(hello)
            hello = tls.takeOutput()
        }
        _ = try hello.withUnsafeBytes { try socket.write($0) }
        var reply = [UInt8](repeating: 0, count: 4096)
        var received: [UInt8] = []
        while LoadGenerator.replyEnd(received, .water) == nil {
            guard let count = try reply.withUnsafeMutableBytes({ try socket.read(into: $0) }), count > 0 else {
                throw WaterBenchError("the handshake got no reply")
            }
            received += try tls.map { try $0.decrypt(Array(reply[0..<count])) ?? [] } ?? Array(reply[0..<count])
        }
        return (socket, tls)
    }

    /// `count` LogWater frames with ids of their own, encoded now: made as `WaterClient.newID`
    /// makes them (a millisecond each, counter 0, one installation of its own, new for every
    /// call so that no two runs make the same id), so the archives hold what a client's drinks
    /// would put there; each drunk at a time ``BenchDrinks`` gives, within the member's caps.
    static func logRequests(_ count: Int, token: [UInt8]) -> [[UInt8]] {
        let start = UnixTime.nowMilliseconds() - Int64(count) - 60_000
        let installation = UInt64.random(in: 1..<(1 << 62))
        let times = BenchDrinks.times(count, for: token)
        return (0..<count).map { n in
            let id = RecordID.timeOrdered(unixMilliseconds: start + Int64(n), counter: 0, installation: installation)
            return
                (try? frame(
                    WaterV1.LogWaterRequest(entryID: id.description, amountMl: 250, atUnixMs: times[n]),
                    callID: UInt64(n + 2), token: token)) ?? []
        }
    }

    static func frame<Request: RPCRequest>(_ request: Request, callID: UInt64, token: [UInt8]) throws -> [UInt8] {
        try FrameEncoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
            .encode(WaterV1.RequestEnvelope(callID: callID, request: request, authToken: token).serializedBytes())
    }

    static func login(_ address: HostPort, _ name: String, password: String = password) throws -> WaterClient {
        let client = try WaterClient(configuration: ClientConfiguration(server: address, security: .plaintext))
        try client.login(username: name, password: password)
        return client
    }

    /// "Log a drink" for Redis: append it to the member's list and add it to the weekly board.
    /// Returns the script's SHA-1, for EVALSHA.
    static func loadScript(_ redis: RedisClient) throws -> String {
        try redis.command([
            "SCRIPT", "LOAD",
            "redis.call('RPUSH', KEYS[1], ARGV[3]); return redis.call('ZINCRBY', KEYS[2], ARGV[1], ARGV[2])",
        ])
    }

    static func pingMicroseconds(_ redis: RedisClient) throws -> Double {
        var times: [Double] = []
        for _ in 0..<2000 { times.append(try Measure.microseconds { try redis.command(["PING"]) }) }
        return Measure.median(times)
    }

    static func fdatasyncMicroseconds(in directory: String) -> Double {
        let fd = open("\(directory)/fsync-probe", O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        let payload = [UInt8](repeating: 1, count: 100)
        var times: [Double] = []
        for index in 0..<1000 {
            times.append(
                Measure.microseconds {
                    _ = payload.withUnsafeBytes { pwrite(fd, $0.baseAddress, 100, off_t(index * 100)) }
                    fdatasync(fd)
                })
        }
        return Measure.median(times)
    }

    /// A memory figure of /proc/PID/status (`VmRSS:`, `RssAnon:`), in MiB.
    static func statusMiB(_ field: String, of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return 0 }
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    /// `water-client log` from process start to exit, median of 20.
    /// The median wall time of `water-client log` (20 runs) after one login. With
    /// `WATER_TLS_FINGERPRINT` in `extra`, the login pins it.
    static func clientWallTime(_ address: HostPort, scratch: String, environment extra: [String: String]) throws
        -> Double
    {
        let environment = [
            "WATER_SERVER": address.description, "XDG_CONFIG_HOME": "\(scratch)/client",
            "XDG_STATE_HOME": "\(scratch)/state", "NO_COLOR": "1",
        ].merging(extra.filter { $0.key != "WATER_TLS_FINGERPRINT" }) { $1 }
        let pin = extra["WATER_TLS_FINGERPRINT"].map { ["--fingerprint", $0] } ?? []
        let login = try Spawned.run(
            productsDirectory + "/water-client", ["login", "h2", "--password-stdin"] + pin,
            input: password + "\n", environment: environment)
        guard login == 0 else { throw WaterError(.internal, "water-client login failed") }
        var times: [Double] = []
        for _ in 0..<20 {
            times.append(
                try Measure.microseconds {
                    _ = try Spawned.run(productsDirectory + "/water-client", ["log", "250"], environment: environment)
                } / 1000)
        }
        return Measure.median(times)
    }

    /// `water-client prompt` from process start to exit (200 runs, after ``clientWallTime``
    /// left a session and a fresh cache in `scratch`), and `water-client --version` beside it.
    static func promptWallTime(scratch: String) throws -> (p50: Double, p90: Double, floor: Double) {
        let environment = [
            "XDG_CONFIG_HOME": "\(scratch)/client", "XDG_STATE_HOME": "\(scratch)/state", "NO_COLOR": "1",
        ]
        func times(_ arguments: [String]) throws -> [Double] {
            try (0..<200).map { _ in
                try Measure.microseconds {
                    _ = try Spawned.run(productsDirectory + "/water-client", arguments, environment: environment)
                } / 1000
            }.sorted()
        }
        let prompt = try times(["prompt"])
        let version = try times(["--version"])
        return (Measure.median(prompt), prompt[prompt.count * 9 / 10], Measure.median(version))
    }

    static func freePort() -> UInt16 {
        (try? Socket.listen(on: HostPort(host: "127.0.0.1", port: 0))).map { socket in
            defer { socket.close() }
            return socket.localAddress?.port ?? 6399
        } ?? 6399
    }
}

/// The directory of this executable, where the other executables are built too.
let productsDirectory = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
)
.deletingLastPathComponent().path

func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw WaterError(.internal, "missing \(what)") }
    return value
}
