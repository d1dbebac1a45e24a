import Testing

@testable import WaterServer

/// When a connection's streams pause and resume, and when a stuck one is closed, count by count.
@Suite("Output watermarks")
struct OutputWatermarksTests {
    static let second: UInt64 = 1_000_000_000
    static let limits = OutputWatermarks.Limits(lowMark: 100, highMark: 400, stallTimeout: 60 * second)

    @Test("writable up to the high mark, unwritable past it, writable again only at the low mark")
    func hysteresis() {
        var marks = OutputWatermarks(limits: Self.limits)
        #expect(marks.isWritable)
        #expect(marks.unsentChanged(to: 400, now: 0) == nil)
        #expect(marks.isWritable, "at the high mark is not over it")
        #expect(marks.unsentChanged(to: 401, now: 0) == .becameUnwritable)
        #expect(!marks.isWritable)
        #expect(marks.unsentChanged(to: 900, now: 0) == nil)
        // Under the high mark is not enough: it waits for the low mark.
        #expect(marks.unsentChanged(to: 300, now: 0) == nil)
        #expect(marks.unsentChanged(to: 101, now: 0) == nil)
        #expect(!marks.isWritable)
        #expect(marks.unsentChanged(to: 100, now: 0) == .becameWritable)
        #expect(marks.isWritable)
        #expect(marks.unsentChanged(to: 350, now: 0) == nil)
        #expect(marks.unsentChanged(to: 0, now: 0) == nil)
        #expect(marks.unsentChanged(to: 500, now: 0) == .becameUnwritable)
        #expect(marks.unsentChanged(to: 0, now: 0) == .becameWritable)
    }

    @Test("over the high mark with nothing sent for the stall timeout is stalled; any byte sent starts it again")
    func stall() {
        var marks = OutputWatermarks(limits: Self.limits)
        _ = marks.unsentChanged(to: 300, now: 5 * Self.second)
        #expect(marks.stallDeadline == nil, "under the high mark nothing is stuck")
        _ = marks.unsentChanged(to: 500, now: 10 * Self.second)
        #expect(marks.stallDeadline == 70 * Self.second)
        // More queued is no progress: the stall keeps its start.
        _ = marks.unsentChanged(to: 800, now: 30 * Self.second)
        #expect(marks.stallDeadline == 70 * Self.second)
        #expect(!marks.isStalled(now: 69 * Self.second))
        #expect(marks.isStalled(now: 70 * Self.second))
        // The peer read a little: it is slow, not stuck, and gets the whole timeout again.
        _ = marks.unsentChanged(to: 700, now: 71 * Self.second)
        #expect(marks.stallDeadline == 131 * Self.second)
        #expect(!marks.isStalled(now: 100 * Self.second))
        // Down to the high mark (still unwritable) ends the stall.
        _ = marks.unsentChanged(to: 400, now: 72 * Self.second)
        #expect(marks.stallDeadline == nil)
        #expect(!marks.isStalled(now: 1000 * Self.second))
        #expect(!marks.isWritable)
    }

    @Test("the clock is read only when a stall starts or moves")
    func clockReadOnlyWhenNeeded() {
        var marks = OutputWatermarks(limits: Self.limits)
        var reads = 0
        func now() -> UInt64 {
            reads += 1
            return 0
        }
        for count in [10, 200, 400, 0, 399] { _ = marks.unsentChanged(to: count, now: now()) }
        #expect(reads == 0)
        _ = marks.unsentChanged(to: 401, now: now())
        _ = marks.unsentChanged(to: 402, now: now())
        #expect(reads == 1)
    }

    @Test("the defaults: pause over 256 KiB, resume at 64 KiB, closed after 60 s stuck")
    func defaults() {
        let limits = OutputWatermarks().limits
        #expect(limits.lowMark == 64 * 1024 && limits.highMark == 256 * 1024)
        #expect(limits.stallTimeout == 60 * Self.second)
    }
}
