import Dispatch
import Synchronization
import Testing

@testable import WaterServer

/// Reads too costly for the loop, run off it in turn by member (issue 30 item 3).
@Suite("Reads off the loop, in turn by member")
struct ReadPoolTests {
    @Test("another member's read waits behind at most one of a member who queued many")
    func inTurnByMember() {
        let pool = ReadPool()
        let order = Mutex<[String]>([])
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        // A read that holds the pool while the others queue.
        done.enter()
        #expect(
            submit(pool, from: 9) {
                started.signal()
                release.wait()
                done.leave()
            })
        started.wait()
        for name in ["ann 1", "ann 2", "ann 3", "ben 1"] {
            done.enter()
            let member: UInt64 = name.hasPrefix("ann") ? 1 : 2
            #expect(
                submit(pool, from: member) {
                    order.withLock { $0.append(name) }
                    done.leave()
                })
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(order.withLock { $0 } == ["ann 1", "ben 1", "ann 2", "ann 3"])
    }

    @Test("a member's reads waiting are bounded: one over is refused at once, and nothing queued for it")
    func boundedPerMember() {
        let pool = ReadPool()
        let release = DispatchSemaphore(value: 0)
        let ran = Mutex(0)
        let done = DispatchGroup()
        for _ in 0..<ReadPool.maximumPerMember {
            done.enter()
            #expect(
                submit(pool, from: 1) {
                    release.wait()
                    ran.withLock { $0 += 1 }
                    done.leave()
                })
        }
        #expect(!submit(pool, from: 1) { ran.withLock { $0 += 1000 } }, "the 65th waits for nothing")
        // Another member is not held to the first one's count.
        done.enter()
        #expect(
            submit(pool, from: 2) {
                ran.withLock { $0 += 1 }
                done.leave()
            })
        for _ in 0..<ReadPool.maximumPerMember { release.signal() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(ran.withLock { $0 } == ReadPool.maximumPerMember + 1)
        #expect(ReadPool.refusal.code == .resourceExhausted)
    }

    @Test("a read's answer goes once it no longer counts: a member at the maximum may send the next one then")
    func answerAfterRelease() {
        let pool = ReadPool()
        let release = DispatchSemaphore(value: 0)
        let accepted = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        for index in 0..<ReadPool.maximumPerMember {
            let last = index == ReadPool.maximumPerMember - 1
            #expect(
                pool.submit(from: 1) {
                    release.wait()
                    return { _ in
                        // What a pipelining client does on an answer: the next call at once.
                        guard last else { return }
                        accepted.withLock { $0 = pool.submit(from: 1) { { _ in } } }
                        done.signal()
                    }
                })
        }
        for _ in 0..<ReadPool.maximumPerMember { release.signal() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(accepted.withLock { $0 } == true)
    }
}

/// Submits a read whose answer does nothing.
private func submit(_ pool: ReadPool, from member: UInt64, _ body: @escaping @Sendable () -> Void) -> Bool {
    pool.submit(from: member) {
        body()
        return { _ in }
    }
}
