import Dispatch
import Testing
import WaterProtocol
import WaterSync

@testable import WaterServer

/// The live boards' registry lets go of a watcher however its call ends: cancelled by the
/// client, or ended by the server when a board is too large to send (``Responder/yield(_:whenWritable:)``
/// ends the call as ``Responder/end(_:)`` does, so the watcher's cancel runs).
@Suite("The live boards' watchers")
struct BoardHubTests {
    /// A WatchBoard call as the connection carries it: framed up to `maximumPayload` bytes; a
    /// call the server ends runs its cancels first, as the connection's `callEnded` does, then
    /// notes its status.
    final class Call: Sendable {
        let cancels = Locked<[@Sendable () -> Void]>([])
        let endings = Locked<[WaterV1.StatusCode]>([])
        let ended = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)

        func responder(maximumPayload: Int) -> Responder {
            var responder = Responder(
                callID: 7, method: WaterV1.WatchBoardRequest.method.fullName, deliver: { _, _ in },
                deliverFramed: { [sent] _, _ in sent.signal() },
                writer: FrameWriter(maximumPayloadLength: maximumPayload),
                onCancel: { [cancels] cancel in cancels.withLock { $0.append(cancel) } })
            responder.ending = { [self] error in
                cancel()
                endings.withLock { $0.append(error.code) }
                ended.signal()
            }
            return responder
        }

        func cancel() {
            for cancel in cancels.withLock({ $0 }) { cancel() }
        }
    }

    @Test("a board too large for the connection ends the call with RESOURCE_EXHAUSTED and leaves no watcher")
    func tooLargeEndsAndForgets() throws {
        let h = try HandlerHarness()
        let call = Call()
        let hub = h.services.boardHub
        hub.watch(order: .progress, viewer: h.admin.id, responder: call.responder(maximumPayload: 16))
        #expect(call.ended.wait(timeout: .now() + 30) == .success)
        #expect(call.endings.withLock { $0 } == [.resourceExhausted])
        #expect(hub.watcherCount == 0)
    }

    @Test("a board that fits keeps its watcher until the call is cancelled")
    func fitsAndStays() throws {
        let h = try HandlerHarness()
        let call = Call()
        let hub = h.services.boardHub
        hub.watch(order: .progress, viewer: h.admin.id, responder: call.responder(maximumPayload: 1 << 20))
        #expect(call.sent.wait(timeout: .now() + 30) == .success)
        #expect(hub.watcherCount == 1 && call.endings.withLock { $0 }.isEmpty)
        call.cancel()
        #expect(hub.watcherCount == 0)
    }
}
