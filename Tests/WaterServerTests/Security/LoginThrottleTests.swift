import Testing

@testable import WaterServer

@Suite("LoginThrottle")
struct LoginThrottleTests {
    static let now: Int64 = 1_796_040_000_000

    private func admitted(_ admission: LoginThrottle.Admission) -> LoginThrottle.Attempt? {
        if case .admitted(let attempt) = admission { return attempt }
        return nil
    }

    @Test("128 logins pipelined for one name: one in flight at a time, 3 hashed, the right password at #128 refused")
    func pipelined() throws {
        let throttle = LoginThrottle()
        var hashed = 0
        var answers: [LoginThrottle.Admission] = []
        // Everything arrives at once: each is admitted only when the one before was answered,
        // as the hash queue's lane for (name, address) makes it.
        var inFlight: LoginThrottle.Attempt?
        for n in 1...128 {
            if let attempt = inFlight {
                // A second one while one is being hashed is never admitted.
                #expect(throttle.admit("ann", from: "10.0.0.66", now: Self.now) != .admitted(attempt))
                throttle.settle(attempt, succeeded: false)
                inFlight = nil
            }
            let answer = throttle.admit("ann", from: "10.0.0.66", now: Self.now)
            answers.append(answer)
            guard let attempt = admitted(answer) else { continue }
            hashed += 1
            if n == 128 {
                throttle.settle(attempt, succeeded: true)
            } else {
                inFlight = attempt
            }
        }
        #expect(hashed == LoginThrottle.freeFailures)
        #expect(answers.dropFirst(LoginThrottle.freeFailures).allSatisfy { $0 == .waitUntil(Self.now + 1000) })
        #expect(answers.last == .waitUntil(Self.now + 1000))
        // The owner's own device is not slowed.
        #expect(admitted(throttle.admit("ann", from: "10.0.0.20", now: Self.now)) != nil)
    }

    @Test(
        "while one attempt for a name is in flight from an address, another is not admitted, even with failures to spare"
    )
    func oneInFlight() throws {
        let throttle = LoginThrottle()
        let first = try #require(admitted(throttle.admit("ann", from: "10.0.0.66", now: Self.now)))
        #expect(throttle.admit("ann", from: "10.0.0.66", now: Self.now) == .alreadyInFlight)
        #expect(admitted(throttle.admit("bob", from: "10.0.0.66", now: Self.now)) != nil)
        throttle.settle(first, succeeded: false)
        #expect(admitted(throttle.admit("ann", from: "10.0.0.66", now: Self.now)) != nil)
    }

    @Test("an admitted attempt counts at once: 20 names in flight from one address, and the 21st waits")
    func pendingFailuresCount() throws {
        let throttle = LoginThrottle()
        let attempts = (1...LoginThrottle.freeFailuresPerAddress).compactMap {
            admitted(throttle.admit("guess\($0)", from: "10.0.0.66", now: Self.now))
        }
        #expect(attempts.count == LoginThrottle.freeFailuresPerAddress)
        #expect(throttle.admit("another", from: "10.0.0.66", now: Self.now) == .waitUntil(Self.now + 1000))
        #expect(throttle.retryAfter("another", from: "10.0.0.66", now: Self.now) == Self.now + 1000)
        #expect(throttle.retryAfter("another", from: "10.0.0.20", now: Self.now) == nil)
    }

    @Test("a success starts its address afresh but for the attempts still in flight, which stay counted")
    func successKeepsOthersInFlight() throws {
        let throttle = LoginThrottle()
        let others = (1...5).compactMap { admitted(throttle.admit("guess\($0)", from: "10.0.0.66", now: Self.now)) }
        let owner = try #require(admitted(throttle.admit("ann", from: "10.0.0.66", now: Self.now)))
        throttle.settle(owner, succeeded: true)
        for attempt in others { throttle.settle(attempt, succeeded: false) }
        // 5 counted, so 15 more before the address waits (not 20).
        for n in 1...(LoginThrottle.freeFailuresPerAddress - 5) {
            let attempt = try #require(admitted(throttle.admit("scan\(n)", from: "10.0.0.66", now: Self.now)))
            throttle.settle(attempt, succeeded: false)
        }
        #expect(throttle.retryAfter("scan", from: "10.0.0.66", now: Self.now) == Self.now + 1000)
    }

    @Test("the wait doubles with each failure past the free ones, up to 5 minutes, and then lets one in")
    func growingWait() throws {
        let throttle = LoginThrottle()
        var now = Self.now
        var waits: [Int64] = []
        for _ in 0..<14 {
            let attempt = try #require(admitted(throttle.admit("ann", from: "10.0.0.66", now: now)))
            throttle.settle(attempt, succeeded: false)
            if let until = throttle.retryAfter("ann", from: "10.0.0.66", now: now) {
                waits.append(until - now)
                now = until
            }
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Int64($0) * 1000 })
    }
}
