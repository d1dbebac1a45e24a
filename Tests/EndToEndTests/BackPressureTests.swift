import Foundation
import Glibc
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterStore
import WaterSync
import WaterTLS
import WaterTestSupport
import WaterTransport
import WaterZoneInfo

/// Streams whose peer does not read (issue 18, item 5): they stop producing, the server's
/// memory stays bounded, everyone else is served, and nothing is lost by pausing.
@Suite("Back-pressure on streams, end to end", .serialized)
struct BackPressureTests {
    /// Ten years of mum's drinks (about 36 000), written into her archive while the server is
    /// stopped, as a household that has used it that long has them. (Five years' export fits in
    /// the kernel's buffers and the high mark together here, and never pauses.)
    static func serverWithHistory(years: Int = 10, tls: Bool = false) throws -> (ServerProcess, [WaterEntry]) {
        var history = RealisticHistory(seed: 18)
        let days = years * 365
        let entries = history.entries(
            days: days, startingAt: UnixTime.nowMilliseconds() - Int64(days + 1) * 86_400_000)
        // One address holds every connection of these tests, and half its share may be in their
        // handshake at once: the 64 exports connect all together, so 100 of them may.
        let options = ["--max-per-address", "200"]
        var server = try ServerProcess.fresh(options, tls: tls)
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        server = try server.restarted(options) {
            let store = try FileArchiveStore(
                path: server.dataDirectory, options: StoreOptions(timeZones: ZoneInfo.system),
                owner: "the test's history")
            defer { store.close() }
            let account = try #require(try store.accounts.read { $0.account(named: "mum") })
            let archive = try store.member(account.id) ?? store.createMember(account.id)
            for start in stride(from: 0, to: entries.count, by: 2000) {
                try archive.commitAndWait { _ in
                    entries[start..<min(start + 2000, entries.count)].map { .water(.logged($0)) }
                }
            }
        }
        return (server, entries)
    }

    @Test(
        "64 Export streams nobody reads keep the server under 150 MB; another member is served; one read later is whole"
    )
    func unreadExports() throws {
        let (server, entries) = try Self.serverWithHistory()
        let token = try server.client("mum", password: adminPassword).token
        let exports = try (0..<64).map { _ in
            try UnreadConnection(
                to: server.address, sending: handshakeFrame() + request(2, WaterV1.ExportRequest(), token))
        }
        // Known events: each export's first chunk reached its peer, and each stream paused
        // (the server logs that once per connection). The exports are made one chunk at a time
        // on one queue: on a machine busy with other builds, 64 of them take a while.
        #expect(waitUntil(seconds: 180) { exports.allSatisfy { $0.hasReceived(atLeast: 2048) } })
        #expect(server.waitForLog("streams paused", lines: 64, seconds: 180))
        let pausedMemory = try ProcessMemory(pid: server.pid)

        // Another member is served meanwhile: a write, a read, and an export of their own.
        let dad = try server.client("dad", password: "dad-password-1")
        _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 300))
        #expect(try dad.call(WaterV1.GetTodayRequest()).day?.amountMl == 300)
        var dadsEntries = 0
        try dad.stream(WaterV1.ExportRequest()) {
            dadsEntries += $0.history?.entries.count ?? 0; return true
        }
        #expect(dadsEntries == 1)
        let memory = try ProcessMemory(pid: server.pid)
        print("back-pressure: 64 unread exports of \(entries.count) entries: \(pausedMemory) paused, \(memory) after")
        #expect(memory.residentKiB < 150 * 1024, "\(memory)")
        #expect(pausedMemory.residentKiB < 150 * 1024, "\(pausedMemory)")

        // The peer that starts reading gets the whole export, exactly once, in order.
        let replies = try exports[0].readAll(until: { $0.contains { $0.callID == 2 && $0.endOfStream } })
        #expect(replies.last { $0.callID == 2 }?.statusCode == .ok)
        let exported = try Self.exportedEntries(replies, call: 2)
        #expect(exported.map(\.entryID) == entries.map(\.id.description))
        #expect(exported.map(\.amountMl) == entries.map(\.amountMillilitres))
        for export in exports { export.close() }
        #expect(server.stop() == 0)
    }

    @Test("a WatchBoard reader that falls behind gets the latest board when it reads again, not every one it missed")
    func slowWatcher() throws {
        let (server, entries) = try Self.serverWithHistory()
        let token = try server.client("mum", password: adminPassword).token
        // The slow reader watches the board and exports on one connection: the export fills it
        // past the high mark, so the connection has no room while the board changes.
        let slow = try UnreadConnection(
            to: server.address,
            sending: handshakeFrame() + request(2, WaterV1.WatchBoardRequest(), token)
                + request(3, WaterV1.ExportRequest(), token))
        #expect(server.waitForLog("streams paused", lines: 1))

        // A reader that keeps up sees a board after each of dad's drinks: 20 changes, each
        // broadcast before the next.
        let boards = Locked<[Int32]>([])
        let configuration = ClientConfiguration(server: server.address, security: server.security)
        let watcher = Thread {
            guard let client = try? WaterClient(configuration: configuration),
                (try? client.login(username: "mum", password: adminPassword)) != nil
            else { return }
            try? client.stream(WaterV1.WatchBoardRequest()) { response in
                let total = response.board?.rows.first { $0.username == "dad" }?.totalMl ?? 0
                boards.withLock { $0.append(total) }
                return total < 2000
            }
        }
        watcher.start()
        #expect(waitUntil { boards.withLock { !$0.isEmpty } })
        let dad = try server.client("dad", password: "dad-password-1")
        for drink in 1...20 {
            _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 100))
            #expect(waitUntil { boards.withLock { $0.last == Int32(100 * drink) } })
        }
        #expect(boards.withLock { $0.count } >= 21)

        // The slow reader reads again: the export is whole, and of the 20 changes it was sent
        // at most the one it was given before its connection filled (parked there) and the
        // latest board once there was room: never a queue of the boards it missed.
        let replies = try slow.readAll(until: { replies in
            replies.contains { $0.callID == 3 && $0.endOfStream }
                && replies.contains { $0.callID == 2 && (try? Self.dadsTotal($0)) == 2000 }
        })
        let watched = try replies.filter { $0.callID == 2 }.map { try Self.dadsTotal($0) }
        print("back-pressure: the slow watcher was sent \(watched.count) boards for 20 changes: \(watched)")
        #expect(watched.first == 0, "the board when the call started")
        #expect(watched.last == 2000, "the latest board: \(watched)")
        #expect(watched.count <= 3, "coalesced, not queued: \(watched)")
        #expect(try Self.exportedEntries(replies, call: 3).count == entries.count)
        slow.close()
        watcher.join(seconds: 30)
        #expect(server.stop() == 0)
    }

    @Test("over TLS, where what waits is ciphertext, an export paused while nobody reads is whole when read")
    func pausedExportOverTLS() throws {
        let (server, entries) = try Self.serverWithHistory(tls: true)
        let token = try server.client("mum", password: adminPassword).token
        let connection = try UnreadConnection(to: server.address, sending: [])
        defer { connection.close() }
        try connection.startTLS(ClientConfiguration(server: server.address, security: server.security))
        try connection.send(handshakeFrame() + request(2, WaterV1.ExportRequest(), token))
        #expect(server.waitForLog("streams paused", lines: 1))
        let replies = try connection.readAll(until: { $0.contains { $0.callID == 2 && $0.endOfStream } })
        #expect(replies.last { $0.callID == 2 }?.statusCode == .ok)
        #expect(try Self.exportedEntries(replies, call: 2).map(\.entryID) == entries.map(\.id.description))
        #expect(server.stop() == 0)
    }

    @Test("a connection that reads nothing for 60 s while its stream waits is closed; the others carry on")
    func stalledConnectionIsClosed() throws {
        let (server, _) = try Self.serverWithHistory()
        let token = try server.client("mum", password: adminPassword).token
        let stalled = try UnreadConnection(
            to: server.address, sending: handshakeFrame() + request(2, WaterV1.ExportRequest(), token))
        defer { stalled.close() }
        #expect(server.waitForLog("streams paused", lines: 1))
        // The known event is the server's own line; its bound is the stall timeout and more.
        #expect(server.waitForLog("read nothing for 60", seconds: 120))
        let replies = try exchange(on: stalled.socket, [], seconds: 60)
        #expect(replies.closed, "the server closed it")
        #expect(!replies.replies.contains { $0.callID == 2 && $0.endOfStream }, "the export was cut short")
        let dad = try server.client("dad", password: "dad-password-1")
        _ = try dad.call(WaterV1.LogWaterRequest(entryID: dad.newID().description, amountMl: 300))
        #expect(server.stop() == 0)
    }

    /// The entries of the Export call `callID`, in the order they came.
    static func exportedEntries(_ replies: [WaterV1.ResponseEnvelope], call callID: UInt64) throws
        -> [WaterV1.WaterEntry]
    {
        try replies.filter { $0.callID == callID && !$0.endOfStream }.flatMap {
            try WaterV1.ExportResponse(serializedBytes: $0.payload).history?.entries ?? []
        }
    }

    static func dadsTotal(_ reply: WaterV1.ResponseEnvelope) throws -> Int32 {
        try WaterV1.WatchBoardResponse(serializedBytes: reply.payload).board?.rows.first { $0.username == "dad" }?
            .totalMl ?? 0
    }
}

/// A request frame with the token.
private func request(_ callID: UInt64, _ request: some RPCRequest, _ token: [UInt8]) -> [UInt8] {
    FrameEncoder.frame(
        flags: [],
        wirePayload: WaterV1.RequestEnvelope(callID: callID, request: request, authToken: token).serializedBytes())
}

/// A connection that sends its calls and then reads nothing, from a peer with a small receive
/// window and small segments (a phone on Wi-Fi): over loopback's 64 KiB segments the kernel
/// would hold megabytes of what it is sent, and the server's buffers would never fill.
private final class UnreadConnection {
    let socket: Socket
    /// The TLS session over it, once ``startTLS(_:)`` has made one.
    private var tls: TLSSession?

    init(to address: HostPort, sending bytes: [UInt8]) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw WaterError(.internal, "socket: errno \(errno)") }
        socket = Socket(descriptor: fd)
        var window: Int32 = 4096
        var segment: Int32 = 1000
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &window, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_MAXSEG, &segment, socklen_t(MemoryLayout<Int32>.size))
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = address.port.bigEndian
        server.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            socket.close()
            throw WaterError(.unavailable, "connect: errno \(errno)")
        }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            socket.close()
            throw WaterError(.unavailable, "write: \(written) of \(bytes.count) bytes")
        }
    }

    /// Makes the TLS handshake (the one time it reads before ``readAll(until:)``).
    func startTLS(_ configuration: ClientConfiguration) throws {
        tls = try WaterConnection.handshakeTLS(configuration, on: socket)
    }

    /// Sends `bytes` (encrypted, over TLS).
    func send(_ bytes: [UInt8]) throws {
        var bytes = bytes
        if let tls {
            try tls.write(bytes)
            bytes = tls.takeOutput()
        }
        _ = try bytes.withUnsafeBytes { try socket.write($0) }
    }

    /// Whether at least `count` bytes wait unread (peeked, not taken).
    func hasReceived(atLeast count: Int) -> Bool {
        var buffer = [UInt8](repeating: 0, count: count)
        return buffer.withUnsafeMutableBytes {
            recv(socket.descriptor, $0.baseAddress, count, Int32(MSG_PEEK | MSG_DONTWAIT))
        } >= count
    }

    /// Reads until `done` says the replies are all there, or the server closes it (bounded for
    /// a stuck server).
    func readAll(until done: ([WaterV1.ResponseEnvelope]) -> Bool) throws -> [WaterV1.ResponseEnvelope] {
        try socket.setReceiveTimeout(milliseconds: 100)
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        var replies: [WaterV1.ResponseEnvelope] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .seconds(60)  // for a stuck server only
        while !done(replies), ContinuousClock.now < deadline {
            guard let count = try buffer.withUnsafeMutableBytes({ try socket.read(into: $0) }) else { continue }
            guard count > 0 else { break }
            let received = Array(buffer[0..<count])
            decoder.append(try tls.map { try $0.decrypt(received) ?? [] } ?? received)
            while let frame = try decoder.nextFrame() {
                replies.append(try WaterV1.ResponseEnvelope(serializedBytes: frame.payload))
            }
        }
        #expect(done(replies), "the replies were not all there: \(replies.count) replies")
        return replies
    }

    func close() { socket.close() }
}

/// What /proc/PID/status says of a process's memory.
struct ProcessMemory: CustomStringConvertible {
    var residentKiB: Int
    var anonymousKiB: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        residentKiB = field("VmRSS")
        anonymousKiB = field("RssAnon")
    }

    var description: String { "VmRSS \(residentKiB / 1024) MiB, RssAnon \(anonymousKiB / 1024) MiB" }
}

extension Thread {
    /// Waits (at most `seconds`) for the thread to finish.
    fileprivate func join(seconds: Int) {
        #expect(waitUntil(seconds: seconds) { isFinished }, "the thread did not finish")
    }
}
