import CSodium
import Dispatch
import WaterSync

/// argon2id through libsodium, off the event loop, with a bound on hashes running at once:
/// each takes `memoryLimit` bytes, so the bound is what keeps a burst of logins from
/// exhausting a Raspberry Pi's memory. Jobs beyond the bound wait in a list, not on a blocked
/// thread: at most `concurrentHashes` blocks run on the pool at a time, each draining the list.
public final class PasswordHasher: Sendable {
    /// How hard each hash is.
    public enum Strength: Sendable {
        /// libsodium's interactive limits (64 MiB, about 0.1 s): for real households.
        case interactive
        /// libsodium's minimum limits: still argon2id, for tests that log in hundreds of times.
        case minimum

        var limits: (operations: UInt64, memory: Int) {
            switch self {
            case .interactive: (UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
            case .minimum: (UInt64(crypto_pwhash_OPSLIMIT_MIN), Int(crypto_pwhash_MEMLIMIT_MIN))
            }
        }
    }

    private struct Jobs {
        var waiting: [@Sendable () -> Void] = []
        var running = 0
    }

    private let strength: Strength
    private let queue = DispatchQueue(label: "water.password-hashing", attributes: .concurrent)
    private let concurrentHashes: Int
    private let jobs = Locked(Jobs())

    public init(strength: Strength, concurrentHashes: Int = 2) {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        self.strength = strength
        self.concurrentHashes = concurrentHashes
    }

    /// Hashes `password` off the caller's thread and calls back with the encoded hash.
    public func hash(_ password: String, completion: @escaping @Sendable (String?) -> Void) {
        run { completion(self.hashNow(password)) }
    }

    /// Checks `password` against `hash` off the caller's thread.
    public func verify(_ password: String, against hash: String, completion: @escaping @Sendable (Bool) -> Void) {
        run { completion(self.verifyNow(password, against: hash)) }
    }

    /// The same, blocking: for the admin commands that run with no server.
    public func hashNow(_ password: String) -> String? {
        let (operations, memory) = strength.limits
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // - 0: done. -1: out of memory (the memory limit could not be allocated).
        let status = crypto_pwhash_str(&output, password, UInt64(password.utf8.count), operations, memory)
        guard status == 0 else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func verifyNow(_ password: String, against hash: String) -> Bool {
        // - 0: the password matches. -1: it does not, or the hash is not one libsodium made.
        crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
    }

    /// A hash of nothing anyone knows, verified against when a username does not exist, so
    /// an unknown user takes as long as a wrong password. Made at the first need, not at
    /// start-up, which must stay fast.
    public var decoyHash: String {
        decoy.withLock { decoy in
            if let decoy { return decoy }
            let made = hashNow("decoy \(UInt64.random(in: .min ... .max))") ?? ""
            decoy = made
            return made
        }
    }

    private let decoy = Locked<String?>(nil)

    private func run(_ work: @escaping @Sendable () -> Void) {
        let startsRunner = jobs.withLock { jobs -> Bool in
            jobs.waiting.append(work)
            guard jobs.running < concurrentHashes else { return false }
            jobs.running += 1
            return true
        }
        if startsRunner { queue.async { self.drain() } }
    }

    /// Runs waiting jobs until there are none; then this runner ends.
    private func drain() {
        while let job = jobs.withLock({ jobs -> (@Sendable () -> Void)? in
            guard !jobs.waiting.isEmpty else {
                jobs.running -= 1
                return nil
            }
            return jobs.waiting.removeFirst()
        }) {
            job()
        }
    }
}
