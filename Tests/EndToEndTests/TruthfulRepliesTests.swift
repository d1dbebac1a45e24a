import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// Every answer tells the truth (issue 31 item 2), in the real server with every sync made slow
/// and exactly one of them failing (`scripts/lib/slow_sync.c` with WATER_FAIL_SYNC_ONCE): a write
/// is refused only when it was not stored, and a read that could have shown a write that was
/// rolled back is refused, whether it waited for that write's group or a later one, on the loop
/// or off it.
@Suite("Replies tell the truth when a sync fails", .serialized)
struct TruthfulRepliesTests {
    static let syncDelay = 0.8

    /// The server, and the tokens of mum (the admin) and dad.
    private struct Household {
        let server: ServerProcess
        let mum: [UInt8]
        let dad: [UInt8]
        /// Made by the shim when the sync that fails begins.
        let begunFile: String

        /// Waits (bounded) until the failing sync has begun: what is sent next goes into a
        /// later group, however slowly this machine runs.
        func waitForTheFailingSync() {
            #expect(waitUntil(seconds: 30, every: .milliseconds(5)) { access(begunFile, F_OK) == 0 })
        }

        /// A client with `token`.
        func client(_ token: [UInt8]) throws -> WaterClient {
            try WaterClient(
                configuration: ClientConfiguration(server: server.address, security: .plaintext), token: token)
        }
    }

    /// Runs `body` with a server whose syncs take ``syncDelay``, mum and dad logged in, and
    /// `connections` connections that have shaken hands; its next sync fails (the fail file
    /// exists, and the failing sync removes it). Then stops it.
    private static func withServer(connections: Int, _ body: (Household, [Socket]) throws -> Void) throws {
        let shim = try DurableRepliesTests.slowSyncShim()
        defer { unlink(shim) }
        let failFile = FileManager.default.temporaryDirectory.appendingPathComponent("fail-once-\(getpid())").path
        defer { unlink(failFile) }
        let begunFile = failFile + "-begun"
        defer { unlink(begunFile) }
        let server = try ServerProcess.fresh(
            environment: [
                "LD_PRELOAD": shim, "WATER_SLOW_SYNC_US": "\(Int(syncDelay * 1_000_000))",
                "WATER_FAIL_SYNC_FILE": failFile, "WATER_FAIL_SYNC_ONCE": "1",
                "WATER_SYNC_BEGUN_FILE": begunFile,
            ])
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1"))
        let dad = try server.client("dad", password: "dad-password-1")
        let sockets = try (0..<connections).map { _ in try Self.connection(server) }
        defer { sockets.forEach { $0.close() } }
        #expect(FileManager.default.createFile(atPath: failFile, contents: nil))
        try body(Household(server: server, mum: mum.token, dad: dad.token, begunFile: begunFile), sockets)
        #expect(server.stop() == 0)
    }

    /// A connection that has shaken hands (its call 1).
    private static func connection(_ server: ServerProcess) throws -> Socket {
        let socket = try Socket.connect(to: server.address)
        #expect(try exchange(on: socket, handshakeFrame(), until: answered(1)).replies.first?.statusCode == .ok)
        return socket
    }

    private static func frame<Request: RPCRequest>(_ callID: UInt64, _ request: Request, _ token: [UInt8]) -> [UInt8] {
        FrameEncoder.frame(
            flags: [],
            wirePayload: WaterV1.RequestEnvelope(callID: callID, request: request, authToken: token).serializedBytes())
    }

    private static func drink(_ callID: UInt64, _ token: [UInt8], _ amount: Int32 = 250) -> [UInt8] {
        frame(callID, WaterV1.LogWaterRequest(entryID: UUID().uuidString.lowercased(), amountMl: amount), token)
    }

    /// Sends `bytes` as one write, so that the server takes the calls in one turn.
    private static func send(_ bytes: [UInt8], on socket: Socket) throws {
        _ = try bytes.withUnsafeBytes { try socket.write($0) }
    }

    /// The replies to calls `callIDs` on `socket`, by call.
    private static func replies(_ callIDs: [UInt64], on socket: Socket) throws -> [UInt64: WaterV1.ResponseEnvelope] {
        let got = try exchange(on: socket, [], until: { replies in callIDs.allSatisfy { answered($0)(replies) } })
        return Dictionary(got.replies.map { ($0.callID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func isRefusal(_ reply: WaterV1.ResponseEnvelope?) -> Bool {
        reply?.statusCode == .internal && reply?.status?.message.contains("nothing was changed") == true
    }

    @Test(
        "a group that fails rolls back its archives; a later group's stale write to one of them is refused, and another member's write in that group is told it was saved"
    )
    func staleWriteRefusesOnlyItsArchive() throws {
        try Self.withServer(connections: 2) { house, sockets in try Self.staleWrite(house, sockets[0], sockets[1]) }
    }

    private static func staleWrite(_ house: Household, _ mumSocket: Socket, _ dadSocket: Socket) throws {
        let (mum, dad) = (house.mum, house.dad)
        // Two drinks of mum's in one turn: the writer's group, whose sync (0.8 s) fails.
        try Self.send(Self.drink(2, mum) + Self.drink(3, mum), on: mumSocket)
        house.waitForTheFailingSync()
        // While it syncs, mum's third drink and dad's go into the next group: mum's is queued
        // before her diary rolls back (stale), dad's diary has nothing to do with it.
        try Self.send(Self.drink(4, mum), on: mumSocket)
        try Self.send(Self.drink(2, dad), on: dadSocket)
        let mums = try Self.replies([2, 3, 4], on: mumSocket)
        let dads = try Self.replies([2], on: dadSocket)
        #expect(Self.isRefusal(mums[2]), "the failing sync refused mum's first drink")
        #expect(dads[2]?.statusCode == .ok, "dad's drink was stored: \(String(describing: dads[2]?.status))")

        // What the replies said is what is stored. (On a slow machine mum's third drink may
        // come after her diary rolled back: then it is stored, and told so.)
        let (dadClient, mumClient) = (try house.client(dad), try house.client(mum))
        #expect(try dadClient.call(WaterV1.GetTodayRequest()).day?.amountMl == 250)
        let saved = [2, 3, 4].filter { mums[$0]?.statusCode == .ok }
        #expect([2, 3, 4].allSatisfy { saved.contains($0) || Self.isRefusal(mums[$0]) })
        #expect(try mumClient.call(WaterV1.GetTodayRequest()).day?.amountMl ?? 0 == Int32(250 * saved.count))
    }

    @Test(
        "reads that could have shown drinks of a group that then failed show no more than is stored: one on the loop that waited for a later, durable group, one on the read pool, and an export"
    )
    func readsOfARolledBackWrite() throws {
        try Self.withServer(connections: 4) { house, sockets in
            try Self.reads(house, writes: sockets[0], reads: sockets[1], history: sockets[2], export: sockets[3])
        }
    }

    private static func reads(_ house: Household, writes: Socket, reads: Socket, history: Socket, export: Socket)
        throws
    {
        let (mum, dad) = (house.mum, house.dad)
        // Mum's two drinks in one turn: the writer's group, whose sync (0.8 s) fails.
        try Self.send(Self.drink(2, mum) + Self.drink(3, mum), on: writes)
        house.waitForTheFailingSync()
        // Dad's drink goes into the next group (durable), and mum's today, read in the same turn,
        // shows her two drinks still being synced: it waits for dad's group.
        try Self.send(
            Self.drink(2, dad) + Self.frame(3, WaterV1.GetTodayRequest(), mum), on: reads)
        // Her history, read off the loop, shows them too.
        try Self.send(Self.frame(2, WaterV1.GetHistoryRequest(days: 7), mum), on: history)
        // And so does her export, made on the export queue.
        try Self.send(Self.frame(2, WaterV1.ExportRequest(), mum), on: export)

        // Each reply shows no more than is stored: what mum's writes were told saved.
        let written = try Self.replies([2, 3], on: writes)
        #expect(Self.isRefusal(written[2]), "the failing sync refused mum's first drink")
        let stored = try house.client(mum).call(WaterV1.GetTodayRequest()).day?.amountMl ?? 0
        #expect(stored == (written[3]?.statusCode == .ok ? 250 : 0), "her second drink is stored exactly when told so")
        let read = try Self.replies([2, 3], on: reads)
        #expect(read[2]?.statusCode == .ok, "dad's drink is stored")
        let today = try #require(read[3])
        let shown = try? WaterV1.GetTodayResponse(serializedBytes: today.payload).day?.amountMl ?? 0
        #expect(Self.isRefusal(today) || shown == stored, "GetToday: \(today.statusCode) \(String(describing: shown))")
        let year = try #require(try Self.replies([2], on: history)[2])
        let inHistory = try? WaterV1.GetHistoryResponse(serializedBytes: year.payload).days.last?.amountMl ?? 0
        #expect(
            Self.isRefusal(year) || inHistory == stored,
            "GetHistory: \(year.statusCode) \(String(describing: inHistory))")

        let exported = try exchange(on: export, [], until: { $0.contains { $0.callID == 2 && $0.endOfStream } })
            .replies.filter { $0.callID == 2 }
        let entries = exported.flatMap {
            (try? WaterV1.ExportResponse(serializedBytes: $0.payload))?.history?.entries ?? []
        }
        #expect(
            Self.isRefusal(exported.last) || (exported.last?.statusCode == .ok && entries.count * 250 == Int(stored)),
            "Export: \(exported.map(\.statusCode)), \(entries.count) drinks")
    }
}
