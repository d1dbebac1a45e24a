import Foundation
import Glibc
import WaterCodec
import WaterCore
import WaterProtocol
import WaterSync
import WaterTransport

/// `water-bench hostile`: issue 18 item 1 measured from outside, as its attacker measured it.
/// The release water-server is started on the benchmark's household (10 members of 5 years,
/// ``ServerBenchmark/prepare(_:)``), in plaintext on 127.0.0.1, and stopped by pid. Then:
///
/// - a member's GetToday latency (closed loop, one logged-in connection), first alone, then
///   while a client with no account sends crafted frames at 25 KB/s (``CraftedFrames``), and
///   the server's CPU time per crafted frame over that flood (/proc/PID/stat);
/// - calls without a token, 32 in flight on one connection for 20 s: the server's RssAnon
///   before and after, and what it logged meanwhile (issue 30 items 1 and 4);
/// - after a 247 KB burst of crafted frames from one connection, how long a new member takes to
///   connect and log in;
/// - a member's Import with one field repeated 260 000 times (compressed as the issue's was,
///   and plain), and the largest Import a member may send: what the importer gets back, and the
///   longest another member's call waited meanwhile;
/// - a member's GetToday latency while another pipelines reads with large replies on 16
///   connections (issue 30 item 3, ``measureReads(_:probeToken:serverPID:)``).
///
/// The figures are wall times on a shared machine: compare the quiet and the flooded ones of
/// the same run.
struct HostileBenchmark: RecordsFigures {
    let directory: String
    var results: [(key: String, value: Double)] = []
    /// Statuses the importers got back, printed after the figures.
    var notes: [String] = []

    /// The attacker's rate, in bytes of frames per second.
    static let floodRate = 25_000
    static let burstBytes = 247_000
    static let probeSeconds = 8.0

    init(directory: String) {
        self.directory = directory
    }

    mutating func note(_ line: String) {
        notes.append(line)
        FileHandle.standardError.write(Data("  \(line)\n".utf8))
    }

    mutating func run() throws {
        let scratch = ScratchDirectory(under: directory)
        defer { scratch.remove() }
        let data = "\(scratch.path)/data"
        try ServerBenchmark.prepare(data)
        // The server's own limits, as a household runs it; plaintext, on loopback only.
        let server = try Spawned(
            productsDirectory + "/water-server",
            [
                "serve", "--data", data, "--listen", "127.0.0.1:0", "--plaintext", "--password-strength", "minimum",
                "--time-zone", "UTC",
            ])
        defer { server.stop() }
        let address = try server.listeningAddress()
        let memberToken = try ServerBenchmark.login(address, "h1").token
        let member = try MemberProbe(address, token: memberToken)
        _ = try member.calls(for: 1)  // warm: h1's archive loaded

        try measureFlood(address, member: member, serverPID: server.pid)
        try measureCallsWithoutAccount(address, server: server)
        try measureBurst(address, serverPID: server.pid)
        // Before the imports, which add to h2's archive.
        try measureReads(address, probeToken: memberToken, serverPID: server.pid)
        try measureImports(address, member: member)
    }

    // MARK: (a) A flood before login

    private mutating func measureFlood(_ address: HostPort, member: MemberProbe, serverPID: Int32) throws {
        let quiet = try member.calls(for: Self.probeSeconds)
        record("member_p50_us_quiet", Measure.median(quiet))
        record("member_p99_us_quiet", Measure.percentile(quiet, 0.99))

        let attacker = Attacker(address, frames: CraftedFrames.flood(), bytesPerSecond: Self.floodRate)
        let thread = attacker.start()
        let flooded = try member.calls(for: Self.probeSeconds)
        let totals = attacker.stop(thread)
        if let failure = totals.failure { throw WaterBenchError("the attacker failed: \(failure)") }
        record("member_p50_us_flood", Measure.median(flooded))
        record("member_p99_us_flood", Measure.percentile(flooded, 0.99))
        record("member_max_us_flood", flooded.max() ?? 0)
        record("flood_bytes_per_s", Double(totals.bytes) / totals.seconds)
        record("flood_frames", Double(totals.frames))
        record("flood_connections", Double(totals.connections))

        // The server's CPU time per crafted frame, with nobody else calling: the same flood at
        // 10 times the rate (/proc counts in 10 ms ticks), its reconnections and handshakes
        // included.
        let fast = Attacker(address, frames: CraftedFrames.flood(), bytesPerSecond: 10 * Self.floodRate)
        let cpuBefore = LoadGenerator.cpuMicroseconds(of: serverPID)
        let fastThread = fast.start()
        usleep(UInt32(Self.probeSeconds / 2 * 1e6))
        let fastTotals = fast.stop(fastThread)
        let cpu = LoadGenerator.cpuMicroseconds(of: serverPID) - cpuBefore
        if let failure = fastTotals.failure { throw WaterBenchError("the attacker failed: \(failure)") }
        record("server_cpu_us_per_flood_frame", cpu / Double(max(fastTotals.frames, 1)))
    }

    // MARK: (a') Calls without a token, as fast as the server answers them

    /// Issue 30's first row: one connection with 32 GetToday calls without a token in flight
    /// (what any device on the network may send), for ``noAccountSeconds``: the server's RssAnon
    /// before and after, and the bytes it logged meanwhile (each call is refused).
    private mutating func measureCallsWithoutAccount(_ address: HostPort, server: Spawned) throws {
        let before = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
        let loggedBefore = server.standardErrorBytes
        let socket = try ServerBenchmark.handshaken(address)
        defer { socket.close() }
        let totals = try PipelinedReads.run([socket], depth: 32, seconds: Self.noAccountSeconds) { callID in
            try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: callID, token: [])
        }
        // What the server logs reaches the pipe a little later than its replies.
        usleep(200_000)
        record("no_account_calls_per_s", Double(totals.replies) / totals.seconds)
        record("no_account_refused", Double(totals.count(.unauthenticated)) / Double(max(totals.replies, 1)))
        record("no_account_rss_anon_mib_before", before)
        let after = ServerBenchmark.statusMiB("RssAnon:", of: server.pid)
        record("no_account_rss_anon_mib_after", after)
        record("no_account_rss_anon_mib_growth", after - before)
        record("no_account_log_bytes", Double(server.standardErrorBytes - loggedBefore))
    }

    static let noAccountSeconds = 20.0

    // MARK: (b) A burst, then a new member's login

    private mutating func measureBurst(_ address: HostPort, serverPID: Int32) throws {
        let frames = CraftedFrames.burst(bytes: Self.burstBytes)
        let burst = frames.reduce(into: [UInt8]()) { $0 += $1 }
        record("burst_bytes", Double(burst.count))
        record("burst_frames", Double(frames.count))
        // Alone: how long the server takes over it (the median of 20 bursts), and its CPU time
        // per frame over them all (/proc counts in 10 ms ticks, more than one burst takes).
        let alone = try ServerBenchmark.handshaken(address)
        defer { alone.close() }
        let cpuBefore = LoadGenerator.cpuMicroseconds(of: serverPID)
        var times: [Double] = []
        var refused = 0
        for _ in 0..<20 {
            let sentAt = Measure.now()
            try MemberProbe.writeAll(burst, to: alone)
            let replies = try MemberProbe.readReplies(frames.count, from: alone)
            times.append(Double(Measure.now() - sentAt) / 1e6)
            refused += replies.filter { $0.statusCode != .ok }.count
        }
        let cpu = LoadGenerator.cpuMicroseconds(of: serverPID) - cpuBefore
        record("burst_answered_ms", Measure.median(times))
        record("server_cpu_us_per_burst_frame", cpu / Double(20 * frames.count))
        record("burst_refused_replies", Double(refused) / 20)

        // Again, and as soon as it is written a new member connects and logs in (h3, whose
        // archive is loaded then: 5 years).
        let socket = try ServerBenchmark.handshaken(address)
        defer { socket.close() }
        try MemberProbe.writeAll(burst, to: socket)
        let login = try Measure.microseconds { _ = try ServerBenchmark.login(address, "h3") }
        record("login_after_burst_ms", login / 1000)
        _ = try MemberProbe.readReplies(frames.count, from: socket)
    }

    // MARK: (c) Imports

    private mutating func measureImports(_ address: HostPort, member: MemberProbe) throws {
        let token = try ServerBenchmark.login(address, "h2").token
        let repeated = CraftedFrames.repeatedEntries(260_000)
        // "own": the same size of Import again (new entries) while the importer also reads its
        // own archive from a second connection, which the loop serves under that archive's lock.
        let imports: [(name: String, frame: [UInt8], ownReads: Bool)] = [
            (
                "zlib", try CraftedFrames.call(WaterV1.ImportRequest.method, repeated, token: token, compressed: true),
                false
            ),
            (
                "plain",
                try CraftedFrames.call(WaterV1.ImportRequest.method, repeated, token: token, compressed: false), false
            ),
            ("valid", try CraftedFrames.largestImport(token: token), false),
            ("own", try CraftedFrames.largestImport(token: token), true),
        ]
        for (name, frame, ownReads) in imports {
            let own = ownReads ? try MemberProbe(address, token: token) : nil
            let importer = try ServerBenchmark.handshaken(address)
            defer { importer.close() }
            // A small call with the token first, as water-client makes: until then the
            // connection's frames are limited to 4 KiB.
            try MemberProbe.writeAll(
                try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: 1, token: token), to: importer)
            _ = try MemberProbe.readReplies(1, from: importer)
            let during = Locked<[Double]>([])
            let done = Locked(false)
            let probe = Thread {
                let latencies = (try? member.calls(until: { done.withLock { $0 } }, atMost: 1_000_000)) ?? []
                during.withLock { $0 = latencies }
            }
            probe.start()
            let ownProbe = own.map { own in
                Thread { _ = try? own.calls(until: { done.withLock { $0 } }, atMost: 1_000_000) }
            }
            ownProbe?.start()
            let started = Measure.now()
            try MemberProbe.writeAll(frame, to: importer)
            let reply = try MemberProbe.readReplies(1, from: importer).first
            let elapsed = Double(Measure.now() - started) / 1e6
            done.withLock { $0 = true }
            while !probe.isFinished || ownProbe?.isFinished == false { usleep(1000) }
            let latencies = during.withLock { $0 }
            record("import_\(name)_bytes", Double(frame.count))
            record("import_\(name)_reply_ms", elapsed)
            record("import_\(name)_calls", Double(latencies.count))
            record("import_\(name)_member_max_ms", (latencies.max() ?? 0) / 1000)
            // The status code the importer got (gRPC's numbers), -1 for none (closed).
            record("import_\(name)_status", Double(reply.map { Int($0.statusCode.rawValue) } ?? -1))
            let status = reply.map { "\($0.statusCode): \(quotedPeerText($0.status?.message ?? "", limit: 160))" }
            note("import \(name): \(status ?? "no reply, connection closed")")
        }
    }
}
