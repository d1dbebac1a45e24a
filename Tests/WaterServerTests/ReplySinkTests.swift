import Testing
import WaterCodec
import WaterProtocol

@testable import WaterServer

/// What a reply leaves behind in the loop's reply arena once it is framed: nothing. (Issue 30:
/// the arena was never reset, and kept every reply's encoding for the life of the server.)
@Suite("Replies keep nothing once framed")
struct ReplySinkTests {
    /// A reply of about 50 KB, as GetHistory(366) with its drinks makes.
    static let largeReply = WaterV1.GetHistoryResponse(
        entries: (0..<1000).map {
            WaterV1.WaterEntry(
                entryID: "0190f5a2-7c1e-7000-8000-\(String(1_000_000_000_000 + $0))", amountMl: 250,
                atUnixMs: 1_796_040_000_000 + Int64($0), date: "2026-11-30", drink: "water")
        })

    @Test("every kind of reply leaves the arena empty, and the arena keeps one reply's room at most")
    func nothingRetainedPerReply() {
        let arena = WireArena(initialBlockSize: 4096)
        var sink = ReplySink(writer: FrameWriter(maximumPayloadLength: 1 << 20), arena: arena)
        let encoded = Encoded(Self.largeReply)
        var capacityAfterWarmUp = 0
        for call in 1...2_000 {
            switch call % 4 {
            case 0: sink.reply(UInt64(call), Self.largeReply)
            case 1: sink.reply(UInt64(call), encoded: encoded)
            case 2: sink.reply(UInt64(call), error: WaterError(.unauthenticated, "log in first"))
            default: sink.reply(ResponseEnvelope(callID: UInt64(call), response: WaterV1.GetTodayResponse()))
            }
            #expect(arena.bytesInUse == 0, "call \(call) left its encoding in the arena")
            sink.output.removeAll(keepingCapacity: true)  // what the connection does once they are sent
            if call == 8 { capacityAfterWarmUp = arena.capacity }
        }
        #expect(capacityAfterWarmUp > 0)
        #expect(arena.capacity == capacityAfterWarmUp, "the arena grew after warm-up")
        #expect(arena.capacity <= arena.maximumRetainedBytes)
    }
}
