import Dispatch
import Glibc
import Testing
import WaterSync

@testable import WaterTransport

@Suite("Event loop")
struct EventLoopTests {
    /// A loop running on a thread of its own for the test's length.
    final class Running: Sendable {
        let loop: EventLoop
        let finished = DispatchSemaphore(value: 0)

        init() throws {
            loop = try EventLoop()
            let (loop, finished) = (self.loop, self.finished)
            DispatchQueue(label: "test loop").async {
                loop.run()
                finished.signal()
            }
        }

        func stop() {
            loop.stop()
            finished.wait()
        }

        /// Runs `body` on the loop and waits for it.
        func onLoop(_ body: @escaping @Sendable () -> Void) {
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                body()
                done.signal()
            }
            done.wait()
        }
    }

    @Test("a task from another thread wakes the loop and runs on it; the turn hooks frame it")
    func execute() throws {
        let running = try Running()
        let seen = Locked<[String]>([])
        running.loop.turnEnded = { seen.withLock { $0.append("end") } }
        let ranOnLoop = Locked(false)
        running.onLoop {
            ranOnLoop.withLock { $0 = running.loop.inLoop }
            seen.withLock { $0.append("task") }
        }
        #expect(ranOnLoop.withLock { $0 })
        #expect(!running.loop.inLoop)
        running.stop()
        let order = seen.withLock { $0 }
        #expect(order.first == "task" && order.dropFirst().first == "end")
    }

    @Test("timers fire in deadline order, a cancelled one never")
    func timers() throws {
        let running = try Running()
        let fired = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        running.onLoop {
            let now = EventLoop.now()
            for (n, milliseconds) in [(3, 30), (1, 10), (2, 20)] {
                running.loop.schedule(at: now + UInt64(milliseconds) * 1_000_000) { fired.withLock { $0.append(n) } }
            }
            let cancelled = running.loop.schedule(at: now + 15_000_000) { fired.withLock { $0.append(99) } }
            running.loop.cancel(cancelled)
            running.loop.schedule(at: now + 40_000_000) { done.signal() }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(fired.withLock { $0 } == [1, 2, 3])
        running.stop()
    }

    final class Reader: EventLoopHandler, @unchecked Sendable {
        let descriptor: Int32
        let received = Locked<[UInt8]>([])
        let got = DispatchSemaphore(value: 0)
        init(_ descriptor: Int32) { self.descriptor = descriptor }

        func ready(_ event: EventLoop.Readiness) {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(descriptor, &buffer, 64)
            if count > 0 {
                received.withLock { $0 += buffer[0..<count] }
                got.signal()
            }
        }
    }

    @Test("a registered descriptor's handler runs when it becomes readable")
    func readiness() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let running = try Running()
        let reader = Reader(pair[0])
        let descriptor = pair[0]
        running.onLoop { _ = try? running.loop.register(descriptor, readable: true, writable: false, handler: reader) }
        let bytes: [UInt8] = [1, 2, 3]
        #expect(write(pair[1], bytes, 3) == 3)
        #expect(reader.got.wait(timeout: .now() + 5) == .success)
        #expect(reader.received.withLock { $0 } == [1, 2, 3])
        running.stop()
    }
}

@Suite("Timer queue")
struct TimerQueueTests {
    @Test("the next wait is the nearest live deadline, rounded up to a millisecond")
    func nextDeadline() {
        var queue = TimerQueue()
        #expect(queue.millisecondsUntilNext(now: 0) == -1)
        let early = queue.schedule(at: 5_000_001) {}
        _ = queue.schedule(at: 9_000_000) {}
        #expect(queue.millisecondsUntilNext(now: 0) == 6)
        queue.cancel(early)
        #expect(queue.millisecondsUntilNext(now: 0) == 9)
        #expect(queue.takeDue(now: 8_999_999).isEmpty)
        #expect(queue.takeDue(now: 9_000_000).count == 1)
        #expect(queue.count == 0 && queue.millisecondsUntilNext(now: 0) == -1)
    }
}
