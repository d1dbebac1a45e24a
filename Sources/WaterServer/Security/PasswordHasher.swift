import CSodium
import Dispatch
import WaterProtocol
import WaterSync

/// argon2id through libsodium, off the event loop, with a bound on hashes running at once:
/// each takes `memoryLimit` bytes, so the bound is what keeps a burst of logins from
/// exhausting a Raspberry Pi's memory. Jobs beyond the bound wait in a ``FairQueue`` (in turn
/// by address, bounded per address), not on a blocked thread: at most `concurrentHashes`
/// blocks run on the pool at a time, each draining the queue.
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

    /// Jobs waiting or running from one address, by default: one per connection slot an
    /// address may hold.
    public static let defaultMaximumPerAddress = 32

    private struct Jobs {
        var queue: FairQueue<@Sendable () -> Void>
        var runners = 0

        /// Counts one more block draining the queue when one is wanted and the bound allows.
        mutating func startRunner(upTo bound: Int) -> Bool {
            guard runners < bound, queue.hasRunnableJob else { return false }
            runners += 1
            return true
        }
    }

    private let strength: Strength
    private let pool = DispatchQueue(label: "water.password-hashing", attributes: .concurrent)
    private let concurrentHashes: Int
    /// Jobs waiting or running from one address, at most.
    let maximumPerAddress: Int
    /// The hash queue's lock: the queue and the count of blocks draining it change together.
    private let jobs: Locked<Jobs>
    private let decoy = Locked<String?>(nil)

    public init(
        strength: Strength, concurrentHashes: Int = 2, maximumPerAddress: Int = PasswordHasher.defaultMaximumPerAddress
    ) {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        self.strength = strength
        self.concurrentHashes = concurrentHashes
        self.maximumPerAddress = maximumPerAddress
        self.jobs = Locked(Jobs(queue: FairQueue(maximumPerAddress: maximumPerAddress)))
    }

    /// Runs `work` on the hash pool in `address`'s turn; jobs of one `lane` of an address run one
    /// at a time, in order.
    /// - Throws: RESOURCE_EXHAUSTED, and `work` never runs, when `address` already has its
    ///   maximum of jobs waiting or running.
    func submit(from address: String, lane: String? = nil, _ work: @escaping @Sendable () -> Void) throws(WaterError) {
        let (queued, startsRunner) = jobs.withLock { jobs -> (Bool, Bool) in
            guard jobs.queue.enqueue(work, from: address, lane: lane) else { return (false, false) }
            return (true, jobs.startRunner(upTo: concurrentHashes))
        }
        guard queued else {
            throw WaterError(
                .resourceExhausted,
                "too many password checks from \(address) are waiting (at most \(maximumPerAddress)); "
                    + "try again once they are answered")
        }
        if startsRunner { pool.async { self.drain() } }
    }

    /// Runs queued jobs until none can run; then this block ends.
    private func drain() {
        while let (job, ticket) = jobs.withLock({
            jobs -> (@Sendable () -> Void, FairQueue<@Sendable () -> Void>.Ticket)? in
            if let next = jobs.queue.next() { return next }
            jobs.runners -= 1
            return nil
        }) {
            job()
            // The lane this job frees may let a waiting job run beside this block.
            let startsRunner = jobs.withLock { jobs in
                jobs.queue.finished(ticket)
                return jobs.startRunner(upTo: concurrentHashes)
            }
            if startsRunner { pool.async { self.drain() } }
        }
    }

    /// A new hash of `password`, blocking (run it in a submitted job, or with no server).
    public func hashNow(_ password: String) -> String? {
        let (operations, memory) = strength.limits
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // - 0: done. -1: out of memory (the memory limit could not be allocated).
        let status = crypto_pwhash_str(&output, password, UInt64(password.utf8.count), operations, memory)
        guard status == 0 else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made of, blocking.
    public func verifyNow(_ password: String, against hash: String) -> Bool {
        // - 0: the password matches. -1: it does not, or the hash is not one libsodium made.
        crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
    }

    /// A hash of nothing anyone knows, verified against when a username does not exist, so
    /// an unknown user takes as long as a wrong password. Made at the first need (in a job on
    /// the pool), not at start-up, which must stay fast.
    var decoyHash: String {
        decoy.withLock { decoy in
            if let decoy { return decoy }
            let made = hashNow("decoy \(UInt64.random(in: .min ... .max))") ?? ""
            decoy = made
            return made
        }
    }
}
