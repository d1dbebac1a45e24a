import Dispatch
import Testing
import WaterProtocol
import WaterSync

@testable import WaterServer

@Suite("PasswordHasher")
struct PasswordHasherTests {
    @Test("with 32 jobs queued from one address and more refused, a quiet address's job runs next")
    func fairAcrossAddresses() throws {
        let hasher = PasswordHasher(strength: .minimum, concurrentHashes: 1, maximumPerAddress: 32)
        let release = try holdHashing(hasher)
        let order = Locked<[String]>([])
        let done = DispatchGroup()
        var refused: [WaterError] = []
        for n in 1...128 {
            done.enter()
            do {
                try hasher.submit(from: "10.0.0.66", lane: "guess\(n)") {
                    order.withLock { $0.append("noisy \(n)") }
                    done.leave()
                }
            } catch {
                refused.append(error)
                done.leave()
            }
        }
        done.enter()
        try hasher.submit(from: "10.0.0.20", lane: "ann") {
            order.withLock { $0.append("quiet") }
            done.leave()
        }
        release.signal()
        done.wait()
        #expect(refused.count == 128 - 32)
        #expect(refused.allSatisfy { $0.code == .resourceExhausted && $0.message.contains("10.0.0.66") })
        #expect(order.withLock { $0 }.prefix(2) == ["noisy 1", "quiet"])
        #expect(order.withLock { $0 }.count == 33)
    }

    @Test("jobs of one lane never run at once, even with a second runner free")
    func lanes() throws {
        let hasher = PasswordHasher(strength: .minimum, concurrentHashes: 2)
        let release = try holdHashing(hasher)
        let events = Locked<[String]>([])
        let done = DispatchGroup()
        for n in 1...4 {
            done.enter()
            try hasher.submit(from: "10.0.0.66", lane: "ann") {
                events.withLock { $0.append("start \(n)") }
                _ = hasher.hashNow("takes a moment")
                events.withLock { $0.append("end \(n)") }
                done.leave()
            }
        }
        release.signal()
        done.wait()
        #expect(events.withLock { $0 } == (1...4).flatMap { ["start \($0)", "end \($0)"] })
    }
}
