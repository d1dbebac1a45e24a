import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// A reply never shows a write that is not on disk yet (issue 19 item 3), tried with every sync
/// of the server made slow: scripts/bench's shim (`scripts/lib/slow_sync.c`), built here with the
/// toolchain's clang and loaded into the real server.
@Suite("Replies wait for the sync that covers them", .serialized)
struct DurableRepliesTests {
    static let syncDelay = 0.8

    /// The slow-sync shim, built once into a temporary directory.
    static func slowSyncShim() throws -> String {
        let clang = try #require(
            ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map { "\($0)/clang" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "the toolchain's clang is on PATH with swift")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../scripts/lib/slow_sync.c"
        ).standardized.path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("slow-sync-\(getpid()).so").path
        let built = try ChildProcess.run(clang, ["-O2", "-shared", "-fPIC", "-o", output, source])
        #expect(built.status == 0, "\(built.error)")
        return output
    }

    @Test("a read on a second connection that sees a drink still being synced waits for that sync")
    func readWaitsForTheWriteItSaw() throws {
        let shim = try Self.slowSyncShim()
        defer { unlink(shim) }
        let server = try ServerProcess.fresh(
            environment: ["LD_PRELOAD": shim, "WATER_SLOW_SYNC_US": "\(Int(Self.syncDelay * 1_000_000))"])
        let token = try server.client("mum", password: adminPassword).token
        let address = server.address
        let reader = try WaterClient(
            configuration: ClientConfiguration(server: server.address, security: .plaintext), token: token)
        _ = try reader.call(WaterV1.GetTodayRequest())

        // The drink goes in on another connection, from another thread.
        let wrote = Date()
        let written = DispatchSemaphore(value: 0)
        Thread {
            let writer = try? WaterClient(
                configuration: ClientConfiguration(server: address, security: .plaintext), token: token)
            _ = try? writer?.call(WaterV1.LogWaterRequest(entryID: writer!.newID().description, amountMl: 250))
            written.signal()
        }.start()
        // Reads on a second connection, until one shows the drink: that one must not have come
        // back before the drink's sync could have ended. (A read the server took before the
        // drink shows nothing of it, and may come at once.)
        var sawIt = false
        for _ in 0..<200 where !sawIt {
            let amount = try reader.call(WaterV1.GetTodayRequest()).day?.amountMl ?? 0
            if amount == 250 {
                sawIt = true
                #expect(
                    Date().timeIntervalSince(wrote) >= Self.syncDelay * 0.9,
                    "a read showed the drink \(Date().timeIntervalSince(wrote)) s after it was sent, before its sync")
            }
        }
        #expect(sawIt, "a read saw the drink")
        #expect(written.wait(timeout: .now() + 30) == .success)
        #expect(server.stop() == 0)
    }
}
