import Testing

@testable import WaterServer

/// When a connection's streams make their next message, message by message and count by count,
/// with no socket: at once while the peer reads, paused once it falls behind, resumed in order.
@Suite("Stream pacing")
struct StreamPacingTests {
    static let limits = OutputWatermarks.Limits(lowMark: 100, highMark: 400, stallTimeout: 60 * 1_000_000_000)

    static func resumed(_ streams: [StreamPacing.PausedStream]) -> [UInt64] { streams.map(\.callID) }

    @Test("a stream produces while the peer reads, pauses past the high mark, resumes at the low mark")
    func pauseAndResume() {
        var pacing = StreamPacing(limits: Self.limits)
        let underHigh = pacing.unsentChanged(to: 300, now: 0)
        let first = pacing.messageQueued(1, next: {})
        #expect(underHigh.isEmpty && first == .produce)
        let overHigh = pacing.unsentChanged(to: 500, now: 0)
        let paused = pacing.messageQueued(1, next: {})
        let pausedToo = pacing.messageQueued(2, next: {})
        #expect(overHigh.isEmpty && paused == .paused(isFirst: true))
        #expect(pausedToo == .paused(isFirst: false), "the log hears of the first pause only")
        #expect(pacing.pausedCalls == [1, 2])
        let underLow = pacing.unsentChanged(to: 200, now: 0)
        #expect(underLow.isEmpty, "under the high mark is not yet the low mark")
        let resumed = pacing.unsentChanged(to: 100, now: 0)
        #expect(Self.resumed(resumed) == [1, 2], "in the order they paused")
        #expect(pacing.pausedCalls.isEmpty)
        let again = pacing.unsentChanged(to: 0, now: 0)
        #expect(again.isEmpty, "each is resumed once")
    }

    @Test("a stream whose call ended is not resumed, and the others keep their place")
    func callEnded() {
        var pacing = StreamPacing(limits: Self.limits)
        _ = pacing.unsentChanged(to: 401, now: 0)
        for call: UInt64 in [3, 4, 5] { _ = pacing.messageQueued(call, next: {}) }
        pacing.callEnded(4)
        let resumed = pacing.unsentChanged(to: 0, now: 0)
        #expect(Self.resumed(resumed) == [3, 5])
    }

    @Test("a closed connection resumes nothing, and pauses are counted once per connection")
    func closed() {
        var pacing = StreamPacing(limits: Self.limits)
        _ = pacing.unsentChanged(to: 401, now: 0)
        _ = pacing.messageQueued(1, next: {})
        pacing.closed()
        let resumed = pacing.unsentChanged(to: 0, now: 0)
        #expect(resumed.isEmpty)
        _ = pacing.unsentChanged(to: 401, now: 0)
        let paused = pacing.messageQueued(2, next: {})
        #expect(paused == .paused(isFirst: false))
    }

    @Test("a peer that reads nothing over the high mark is stalled after the timeout; reading a little starts it again")
    func stall() {
        let second: UInt64 = 1_000_000_000
        var pacing = StreamPacing(limits: Self.limits)
        _ = pacing.unsentChanged(to: 500, now: 10 * second)
        #expect(pacing.stallDeadline == 70 * second)
        #expect(!pacing.isStalled(now: 69 * second) && pacing.isStalled(now: 70 * second))
        _ = pacing.unsentChanged(to: 450, now: 65 * second)
        #expect(pacing.stallDeadline == 125 * second)
        _ = pacing.unsentChanged(to: 50, now: 66 * second)
        #expect(pacing.stallDeadline == nil)
    }
}
