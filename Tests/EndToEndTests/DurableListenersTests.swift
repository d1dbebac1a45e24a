import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterSync
import WaterTestSupport

/// Everyone who hears of a write besides its reply (a live board, Home Assistant through a real
/// mosquitto) hears of it only once it is durable, and hears the truth when its sync failed
/// (issue 31 item 1): the real server, every sync made slow by the shim of
/// ``DurableRepliesTests``, which also fails syncs while a file exists.
@Suite("Live boards and the wall hear of a write once it is durable", .serialized)
struct DurableListenersTests {
    static let syncDelay = DurableRepliesTests.syncDelay

    /// mum's live board, watched on a thread of its own until the server stops: when each board
    /// came, and mum's total on it.
    final class Watcher: Sendable {
        private let boards = Locked<[(at: Date, total: Int32)]>([])

        init(_ server: ServerProcess, token: [UInt8]) {
            let (address, boards) = (server.address, boards)
            Thread {
                let client = try? WaterClient(
                    configuration: ClientConfiguration(server: address, security: .plaintext), token: token)
                try? client?.stream(WaterV1.WatchBoardRequest()) { response in
                    let total = response.board?.rows.first { $0.username == "mum" }?.totalMl ?? -1
                    boards.withLock { $0.append((Date(), total)) }
                    return true
                }
            }.start()
        }

        var received: [(at: Date, total: Int32)] { boards.withLock { $0 } }

        /// Waits (bounded) for a board on which mum's total is `total`; when it came.
        func arrival(of total: Int32, seconds: Double = 30) -> Date? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let board = received.first(where: { $0.total == total }) { return board.at }
                usleep(10_000)
            }
            return nil
        }
    }

    /// The server with slow syncs and `--mqtt`, mum's client and token, once the wall shows
    /// mum's state retained.
    private static func start(_ broker: MosquittoBroker, shim: String, failFile: String) throws -> (
        ServerProcess, WaterClient
    ) {
        let server = try ServerProcess.fresh(
            ["--mqtt", broker.address],
            environment: [
                "LD_PRELOAD": shim, "WATER_SLOW_SYNC_US": "\(Int(syncDelay * 1_000_000))",
                "WATER_FAIL_SYNC_FILE": failFile,
            ])
        #expect(server.waitForLog("mqtt connected"))
        let mum = try server.client("mum", password: adminPassword)
        #expect(try broker.waitForRetained("water/mum/state") { _ in true } != nil)
        return (server, mum)
    }

    private static func amounts(_ subscription: MosquittoBroker.Subscription) -> [Int] {
        subscription.received.compactMap { jsonObject($0.payload)["amount_ml"] as? Int }
    }

    /// Waits (bounded by the subscription) for a state of mum's with `amount`; when it was read.
    private static func arrival(of amount: Int, on wall: MosquittoBroker.Subscription) -> Date? {
        while !amounts(wall).contains(amount) {
            guard wall.lines < wall.count, wall.waitFor(wall.lines + 1) else { return nil }
        }
        return Date()
    }

    @Test("no MQTT message and no live board shows a drink before the reply that acknowledged it")
    func nobodyHearsBeforeTheReply() throws {
        let shim = try DurableRepliesTests.slowSyncShim()
        defer { unlink(shim) }
        let broker = try MosquittoBroker()
        let (server, mum) = try Self.start(broker, shim: shim, failFile: "/nonexistent/water-fail-sync")
        let watcher = Watcher(server, token: mum.token)
        #expect(watcher.arrival(of: 0) != nil, "the first board")
        let wall = try broker.subscribe(["water/mum/state"], count: 20, seconds: 30, timed: true)
        #expect(wall.waitFor(1), "the retained state")

        let sent = Date()
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        let replied = Date()
        #expect(replied.timeIntervalSince(sent) >= Self.syncDelay * 0.9, "the reply waited for the sync")
        #expect(Self.arrival(of: 250, on: wall) != nil, "\(wall.received)")
        // When the subscriber got it, as mosquitto_sub stamped it.
        let stamp = wall.received.first { jsonObject($0.payload)["amount_ml"] as? Int == 250 }.flatMap {
            Double($0.topic)
        }
        let published = Date(timeIntervalSince1970: try #require(stamp, "\(wall.received)"))
        let board = try #require(watcher.arrival(of: 250), "the live board showed the drink")
        // Each heard of it after the reply; before the fix both came within 0.1 s of the write.
        #expect(published >= replied, "the wall heard \(replied.timeIntervalSince(published)) s before the reply")
        #expect(board >= replied, "the live board heard \(replied.timeIntervalSince(board)) s before the reply")
        wall.stop()
        #expect(server.stop() == 0)
    }

    @Test("a write whose sync failed is refused, and neither the wall nor a live board ever shows it")
    func aFailedSyncIsNeverShown() throws {
        let shim = try DurableRepliesTests.slowSyncShim()
        defer { unlink(shim) }
        let failFile = FileManager.default.temporaryDirectory.appendingPathComponent("fail-sync-\(getpid())").path
        defer { unlink(failFile) }
        let broker = try MosquittoBroker()
        let (server, mum) = try Self.start(broker, shim: shim, failFile: failFile)
        let watcher = Watcher(server, token: mum.token)
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        #expect(watcher.arrival(of: 250) != nil)
        #expect(try broker.waitForRetained("water/mum/state") { jsonObject($0)["amount_ml"] as? Int == 250 } != nil)
        let wall = try broker.subscribe(["water/mum/state"], count: 20, seconds: 40)
        #expect(wall.waitFor(1), "the retained state")

        // The card fails: the drink of 300 is refused, and rolled back.
        #expect(FileManager.default.createFile(atPath: failFile, contents: nil))
        var refusal: WaterError?
        do {
            _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 300))
        } catch { refusal = error }
        let refused = try #require(refusal, "the write was refused")
        #expect(refused.code == .internal && refused.message.contains("nothing was changed"), "\(refused)")
        unlink(failFile)
        // A later drink is saved, and everyone hears of it; never of the refused one.
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 100))
        #expect(watcher.arrival(of: 350) != nil, "\(watcher.received.map(\.total))")
        #expect(Self.arrival(of: 350, on: wall) != nil, "\(wall.received)")
        #expect(!watcher.received.contains { $0.total == 550 }, "\(watcher.received.map(\.total))")
        #expect(!Self.amounts(wall).contains(550), "\(Self.amounts(wall))")
        #expect(try mum.call(WaterV1.GetTodayRequest()).day?.amountMl == 350)
        wall.stop()
        #expect(server.stop() == 0)
    }
}
