import Dispatch
import Glibc
import Testing
import WaterProtocol
import WaterSync

@testable import WaterServer

/// The live boards' registry lets go of a watcher however its call ends: cancelled by the
/// connection, or ended by the hub itself when a board is too large to send.
@Suite("The live boards' watchers")
struct BoardHubTests {
    /// A WatchBoard call whose connection frames at most `maximumPayload` bytes; what ended it.
    private static func responder(maximumPayload: Int, ended: Locked<[WaterV1.StatusCode]>, signal: DispatchSemaphore)
        -> Responder
    {
        Responder(
            callID: 7, method: WaterV1.WatchBoardRequest.method.fullName,
            deliver: { envelope, _ in
                guard envelope.endOfStream else { return }
                ended.withLock { $0.append(envelope.statusCode) }
                signal.signal()
            },
            deliverFramed: { _, next in next() }, writer: FrameWriter(maximumPayloadLength: maximumPayload),
            onCancel: { _ in })
    }

    @Test("a board too large for the connection ends the call with RESOURCE_EXHAUSTED and leaves no watcher")
    func tooLargeEndsAndForgets() throws {
        let h = try HandlerHarness()
        let (ended, signal) = (Locked<[WaterV1.StatusCode]>([]), DispatchSemaphore(value: 0))
        let hub = h.services.boardHub
        hub.watch(
            order: .progress, viewer: h.admin.id,
            responder: Self.responder(maximumPayload: 16, ended: ended, signal: signal))
        #expect(signal.wait(timeout: .now() + 30) == .success)
        #expect(ended.withLock { $0 } == [.resourceExhausted])
        // The hub lets go right after the yield that ended the call returns, on its own queue.
        let deadline = DispatchTime.now() + .seconds(10)
        while hub.watcherCount > 0, DispatchTime.now() < deadline { usleep(1000) }
        #expect(hub.watcherCount == 0)
    }

    @Test("a board that fits keeps its watcher until the call is cancelled")
    func fitsAndStays() throws {
        let h = try HandlerHarness()
        let (ended, signal) = (Locked<[WaterV1.StatusCode]>([]), DispatchSemaphore(value: 0))
        let hub = h.services.boardHub
        let sent = DispatchSemaphore(value: 0)
        var responder = Self.responder(maximumPayload: 1 << 20, ended: ended, signal: signal)
        let cancels = Locked<[@Sendable () -> Void]>([])
        responder = Responder(
            callID: responder.callID, method: responder.method, deliver: responder.deliver,
            deliverFramed: { _, _ in sent.signal() }, writer: responder.writer,
            onCancel: { cancel in cancels.withLock { $0.append(cancel) } })
        hub.watch(order: .progress, viewer: h.admin.id, responder: responder)
        #expect(sent.wait(timeout: .now() + 30) == .success)
        #expect(hub.watcherCount == 1 && ended.withLock { $0 }.isEmpty)
        for cancel in cancels.withLock({ $0 }) { cancel() }
        #expect(hub.watcherCount == 0)
    }
}
