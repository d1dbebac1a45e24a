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
struct HostileBenchmark {
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

    mutating func record(_ key: String, _ value: Double) {
        results.append((key, value))
        FileHandle.standardError.write(Data("  \(key) = \((value * 100).rounded() / 100)\n".utf8))
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
        let address = try require(
            HostPort(parsing: server.firstLine.replacingOccurrences(of: "listening on ", with: ""), defaultPort: 0),
            "the listening address")
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

/// A member's closed-loop calls on one logged-in connection: GetToday, one at a time, each sent
/// as soon as the last one's reply is complete.
final class MemberProbe: @unchecked Sendable {
    private let socket: Socket
    private let request: [UInt8]

    init(_ address: HostPort, token: [UInt8]) throws {
        socket = try ServerBenchmark.handshaken(address)
        try socket.setReceiveTimeout(milliseconds: 30_000)
        request = try ServerBenchmark.frame(WaterV1.GetTodayRequest(), callID: 2, token: token)
    }

    deinit { socket.close() }

    /// Calls for `seconds`; each call's latency in microseconds.
    func calls(for seconds: Double) throws -> [Double] {
        let end = Measure.now() + UInt64(seconds * 1e9)
        return try calls(until: { Measure.now() >= end }, atMost: 10_000_000)
    }

    /// Calls until `stop()` (asked before each call) or `limit` calls.
    func calls(until stop: () -> Bool, atMost limit: Int) throws -> [Double] {
        var latencies: [Double] = []
        while latencies.count < limit, !stop() { latencies.append(try call()) }
        return latencies
    }

    /// One call; its latency in microseconds.
    /// - Throws: when it fails or gets no reply within 30 s (the connection is then unusable).
    func call() throws -> Double {
        let start = Measure.now()
        try Self.writeAll(request, to: socket)
        let reply = try Self.readReplies(1, from: socket)
        guard reply.first?.statusCode == .ok else { throw WaterBenchError("GetToday failed: \(reply)") }
        return Double(Measure.now() - start) / 1000
    }

    /// Writes all of `bytes` to a blocking socket.
    static func writeAll(_ bytes: [UInt8], to socket: Socket) throws {
        var done = 0
        while done < bytes.count {
            done += try bytes.withUnsafeBytes { try socket.write(UnsafeRawBufferPointer(rebasing: $0[done...])) }
        }
    }

    /// Reads `count` replies, or fewer when the server closes the connection first (a refusal
    /// of the whole connection); a reply's payload is never compressed at these sizes.
    static func readReplies(_ count: Int, from socket: Socket) throws -> [WaterV1.ResponseEnvelope] {
        try socket.setReceiveTimeout(milliseconds: 30_000)
        var decoder = FrameDecoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
        var replies: [WaterV1.ResponseEnvelope] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while replies.count < count {
            while let frame = try decoder.nextFrame() {
                replies.append(try WaterV1.ResponseEnvelope(serializedBytes: frame.payload))
            }
            guard replies.count < count else { break }
            let read = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard let read else { throw WaterBenchError("no reply within 30 s") }
            if read == 0 { break }
            decoder.append(buffer[0..<read])
        }
        return replies
    }
}

/// A client with no account sending crafted frames at a steady rate, from a thread of its own:
/// the frames in turn, each written whole, reconnecting (and shaking hands again) whenever the
/// server closes the connection, reading every reply.
final class Attacker: @unchecked Sendable {
    struct Totals {
        var frames = 0
        var bytes = 0
        var connections = 0
        var seconds = 0.0
        var failure: String?
    }

    private let address: HostPort
    private let frames: [CraftedFrames.Frame]
    private let bytesPerSecond: Int
    private let stopping = Locked(false)
    private let totals = Locked(Totals())

    init(_ address: HostPort, frames: [CraftedFrames.Frame], bytesPerSecond: Int) {
        (self.address, self.frames, self.bytesPerSecond) = (address, frames, bytesPerSecond)
    }

    func start() -> Thread {
        let thread = Thread { [self] in
            do {
                try run()
            } catch {
                totals.withLock { $0.failure = "\(error)" }
            }
        }
        thread.start()
        return thread
    }

    /// Stops the thread (within one frame's time) and returns what it sent.
    func stop(_ thread: Thread) -> Totals {
        stopping.withLock { $0 = true }
        while !thread.isFinished { usleep(1000) }
        return totals.withLock { $0 }
    }

    private func run() throws {
        let start = Measure.now()
        var socket: Socket?
        var sent = 0
        var next = 0
        defer { socket?.close() }
        while !stopping.withLock({ $0 }) {
            let connection = try socket ?? ServerBenchmark.handshaken(address)
            if socket == nil {
                socket = connection
                totals.withLock { $0.connections += 1 }
            }
            let frame = frames[next % frames.count]
            next += 1
            try MemberProbe.writeAll(frame.bytes, to: connection)
            sent += frame.bytes.count
            // Its reply, or the close of a connection the frame was refused with: the server has
            // inspected it before the next one is counted.
            let replies = try MemberProbe.readReplies(frame.closesConnection ? .max : 1, from: connection)
            if frame.closesConnection || replies.isEmpty {
                connection.close()
                socket = nil
            }
            totals.withLock {
                $0.frames += 1
                $0.bytes = sent
                $0.seconds = Double(Measure.now() - start) / 1e9
            }
            // Keep to the rate: sleep until `sent` bytes are due.
            let due = start + UInt64(Double(sent) / Double(bytesPerSecond) * 1e9)
            let now = Measure.now()
            if due > now { usleep(UInt32(min((due - now) / 1000, 1_000_000))) }
        }
    }
}

/// Frames a client with no account can send, each a valid length-prefixed frame the server must
/// read, inflate and inspect: the kinds issue 18 names (repeated fields, unknown fields, highly
/// compressible payloads), compressed to about 1 KB on the wire and at most 4 KiB inflated
/// (what a connection may send before login).
enum CraftedFrames {
    struct Frame {
        var kind: String
        var bytes: [UInt8]
        /// Whether the server refuses the whole connection for it (a bad envelope or frame).
        var closesConnection: Bool
    }

    private static let login = WaterV1.LoginRequest.method
    /// Inflated payload size: the envelope must fit in 4 KiB before login.
    private static let inflatedTarget = 4000

    /// The flood's frames, in turn.
    static func flood() -> [Frame] {
        [
            Frame(kind: "repeated username", bytes: repeatedLogin(), closesConnection: false),
            Frame(kind: "unknown fields in Login", bytes: unknownLogin(), closesConnection: false),
            Frame(kind: "unknown fields in the envelope", bytes: unknownEnvelope(), closesConnection: true),
            Frame(kind: "8 KB of zeros, compressed", bytes: compressible(), closesConnection: true),
        ]
    }

    /// About `bytes` of frames that leave the connection open, so every one is answered.
    static func burst(bytes: Int) -> [[UInt8]] {
        let kinds = [repeatedLogin(), unknownLogin()]
        var frames: [[UInt8]] = []
        var total = 0
        while total < bytes {
            let frame = kinds[frames.count % kinds.count]
            frames.append(frame)
            total += frame.count
        }
        return frames
    }

    /// A Login whose username occurs hundreds of times (a singular field: proto3 lets the last
    /// one win), with values random enough to compress to about 1 KB.
    static func repeatedLogin() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var payload: [UInt8] = []
            while payload.count < inflatedTarget - 40 {
                payload += Wire.string(1, noisy("mumxxxxx", randomness, &random))
            }
            return Wire.envelope(callID: 2, method: login.fullName, payload: payload)
        }
    }

    /// A Login of unknown fields only (numbers the message does not have), varints and bytes.
    static func unknownLogin() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var payload: [UInt8] = []
            var number: UInt64 = 16
            while payload.count < inflatedTarget - 40 {
                payload += Wire.bytes(number, noisy("unknown!", randomness, &random))
                number += 1
            }
            return Wire.envelope(callID: 3, method: login.fullName, payload: payload)
        }
    }

    /// An envelope of unknown fields.
    static func unknownEnvelope() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var envelope = Wire.varint(1, 4)
            var number: UInt64 = 100
            while envelope.count < inflatedTarget {
                envelope += Wire.bytes(number, noisy("envelope", randomness, &random))
                number += 1
            }
            return envelope
        }
    }

    /// 8 KB of zeros that deflate makes about 40 bytes: refused by the ratio cap before it is
    /// inflated whole.
    static func compressible() -> [UInt8] {
        let envelope = Wire.varint(1, 5) + Wire.bytes(4, [UInt8](repeating: 0, count: 2 * inflatedTarget))
        return FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
    }

    /// An ImportRequest of `count` empty entries: one repeated field, ~2 bytes each.
    static func repeatedEntries(_ count: Int) -> [UInt8] {
        let entries = [UInt8]([0x1A, 0x00]).repeated(count)
        return Wire.bytes(1, entries)
    }

    /// The largest Import a member may send: a frame of 1 MiB of distinct, valid entries, on
    /// days within the member's caps (``BenchDrinks``).
    static func largestImport(token: [UInt8]) throws -> [UInt8] {
        var history = WaterV1.MemberHistory()
        let installation = UInt64.random(in: 1..<(1 << 62))
        for at in BenchDrinks.times(19_000, for: token) {
            let id = RecordID.timeOrdered(unixMilliseconds: at, counter: 0, installation: installation)
            history.entries.append(WaterV1.WaterEntry(entryID: id.description, amountMl: 250, atUnixMs: at))
        }
        let request = WaterV1.ImportRequest(history: history)
        return try FrameEncoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
            .encode(WaterV1.RequestEnvelope(callID: 2, request: request, authToken: token).serializedBytes())
    }

    /// One call's frame, with `payload` as its request's bytes.
    static func call(_ method: MethodDescriptor, _ payload: [UInt8], token: [UInt8], compressed: Bool) throws
        -> [UInt8]
    {
        let envelope = Wire.envelope(callID: 2, method: method.fullName, payload: payload, token: token)
        return compressed
            ? FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
            : FrameEncoder.frame(flags: [], wirePayload: envelope)
    }

    /// The frame of the envelope `make` builds, compressed, with the share of random bytes that
    /// brings it nearest to 1 KB on the wire (at most 20 tries).
    private static func compressedToAbout1KB(_ make: (Double) -> [UInt8]) -> [UInt8] {
        var best: [UInt8] = []
        for step in 1...20 {
            let compressed = Zlib.compress(make(Double(step) / 20))
            if best.isEmpty || abs(compressed.count - 1000) < abs(best.count - 1000) { best = compressed }
            if compressed.count >= 1000 { break }
        }
        return FrameEncoder.frame(flags: .compressed, wirePayload: best)
    }

    /// `text` with each byte replaced by a random letter with probability `share`.
    private static func noisy(_ text: String, _ share: Double, _ random: inout SystemRandomNumberGenerator) -> [UInt8] {
        Array(text.utf8).map { byte in
            Double.random(in: 0..<1, using: &random) < share ? UInt8.random(in: 97...122, using: &random) : byte
        }
    }

    /// Protobuf's wire format by hand: what a hostile client writes, which the codec would not.
    enum Wire {
        static func varint(_ value: UInt64) -> [UInt8] {
            var (value, out) = (value, [UInt8]())
            while value >= 0x80 {
                out.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            return out + [UInt8(value)]
        }

        static func varint(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }

        static func bytes(_ number: UInt64, _ value: [UInt8]) -> [UInt8] {
            varint(number << 3 | 2) + varint(UInt64(value.count)) + value
        }

        static func string(_ number: UInt64, _ value: [UInt8]) -> [UInt8] { bytes(number, value) }

        /// A RequestEnvelope: call id (1), method (2), token (3), payload (4).
        static func envelope(callID: UInt64, method: String, payload: [UInt8], token: [UInt8] = []) -> [UInt8] {
            varint(1, callID) + string(2, Array(method.utf8)) + (token.isEmpty ? [] : bytes(3, token))
                + bytes(4, payload)
        }
    }
}

extension Array {
    /// The array's elements, `count` times over.
    fileprivate func repeated(_ count: Int) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(self.count * count)
        for _ in 0..<count { result += self }
        return result
    }
}
