import Dispatch
import Testing
import WaterProtocol
import WaterSync

@testable import WaterServer

@Suite("PasswordHasher")
struct PasswordHasherTests {
    @Test("a hash carries its cost: each strength's hashes parse back to it; anything else is not a cost")
    func costs() {
        for strength in [PasswordHasher.Strength.minimum, .interactive] {
            let hash = PasswordHasher(strength: strength).hashNow("some password")!
            #expect(PasswordCost(encodedHash: hash) == PasswordCost(strength))
        }
        #expect(PasswordCost(.minimum) < PasswordCost(.interactive))
        for text in ["", "$argon2i$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", "$argon2id$v=19$m=x,t=1$a$b", "plain"] {
            #expect(PasswordCost(encodedHash: text) == nil, "\(text)")
        }
    }

    @Test(
        "every login verifies one hash at the login cost: the stored one, or a decoy, or both when it was made cheaper",
        arguments: [
            (
                PasswordHasher.Strength.interactive, PasswordHasher.Strength.interactive,
                [PasswordHasher.LoginCheck.storedHash]
            ),
            (.interactive, .minimum, [.storedHash, .decoy]),
            (.minimum, .minimum, [.storedHash]),
        ])
    func loginChecks(
        server: PasswordHasher.Strength, stored: PasswordHasher.Strength, plan: [PasswordHasher.LoginCheck]
    ) {
        let hasher = PasswordHasher(strength: server)
        let storedHash = PasswordHasher(strength: stored).hashNow("some password")!
        let cost = hasher.loginCost(storedHashes: [storedHash])
        #expect(cost == PasswordCost(server))
        #expect(PasswordHasher.loginChecks(storedHash: storedHash, cost: cost) == plan)
        #expect(PasswordHasher.loginChecks(storedHash: nil, cost: cost) == [.decoy])
    }

    @Test("a server weaker than a stored hash checks every login at the stored hash's cost, strangers' too")
    func strongerStoredHash() {
        let hasher = PasswordHasher(strength: .minimum)
        let strong = PasswordHasher(strength: .interactive).hashNow("some password")!
        let weak = hasher.hashNow("another password")!
        let cost = hasher.loginCost(storedHashes: [weak, strong])
        #expect(cost == PasswordCost(.interactive))
        #expect(PasswordHasher.loginChecks(storedHash: strong, cost: cost) == [.storedHash])
        #expect(PasswordHasher.loginChecks(storedHash: weak, cost: cost) == [.storedHash, .decoy])
        #expect(PasswordHasher.loginChecks(storedHash: nil, cost: cost) == [.decoy])
        #expect(hasher.checkLogin("some password", against: strong, cost: cost))
        #expect(!hasher.checkLogin("some password", against: weak, cost: cost))
        #expect(!hasher.checkLogin("some password", against: nil, cost: cost))
    }

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
