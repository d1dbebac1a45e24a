import CSodium
import Dispatch
import WaterProtocol
import WaterSync

/// argon2id through libsodium, off the event loop, with a bound on hashes running at once:
/// each takes the memory its cost names, so the bound is what keeps a burst of logins from
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

    /// What new hashes are made at.
    let cost: PasswordCost
    private let pool = DispatchQueue(label: "water.password-hashing", attributes: .concurrent)
    private let concurrentHashes: Int
    /// Jobs waiting or running from one address, at most.
    let maximumPerAddress: Int
    /// The hash queue's lock: the queue and the count of blocks draining it change together.
    private let jobs: Locked<Jobs>
    /// Decoys by cost, each made at its first need (see ``checkLogin(_:against:cost:)``).
    private let decoys = Locked<[PasswordCost: String]>([:])

    public init(
        strength: Strength, concurrentHashes: Int = 2, maximumPerAddress: Int = PasswordHasher.defaultMaximumPerAddress
    ) {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        self.cost = PasswordCost(strength)
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
        Self.hash(password, at: cost)
    }

    /// Whether `password` is the one `hash` was made of, blocking.
    public func verifyNow(_ password: String, against hash: String) -> Bool {
        // - 0: the password matches. -1: it does not, or the hash is not one libsodium made.
        crypto_pwhash_str_verify(hash, password, UInt64(password.utf8.count)) == 0
    }

    private static func hash(_ password: String, at cost: PasswordCost) -> String? {
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // - 0: done. -1: out of memory (the memory limit could not be allocated).
        let status = crypto_pwhash_str(
            &output, password, UInt64(password.utf8.count), cost.iterations, Int(cost.memoryKiB) * 1024)
        guard status == 0 else { return nil }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Logins that cost the same for every username

    /// What one login verifies against.
    enum LoginCheck: Equatable {
        case storedHash
        case decoy
    }

    /// What a login checks so that it costs one hash at `cost` whatever its username names: the
    /// member's stored hash, or a decoy made at `cost` for a name nobody has; and after a
    /// stored hash made at another cost (another `--password-strength`), a decoy at `cost` too.
    static func loginChecks(storedHash: String?, cost: PasswordCost) -> [LoginCheck] {
        guard let storedHash else { return [.decoy] }
        return PasswordCost(encodedHash: storedHash) == cost ? [.storedHash] : [.storedHash, .decoy]
    }

    /// What every login costs: the server's own strength, or the strongest stored hash when one
    /// was made stronger (so that member is not told apart from a name nobody has).
    func loginCost(storedHashes: some Sequence<String>) -> PasswordCost {
        storedHashes.lazy.compactMap(PasswordCost.init(encodedHash:)).reduce(cost, max)
    }

    /// Checks a login's password, blocking, at the cost ``loginChecks(storedHash:cost:)`` plans.
    /// The decoy is made the first time any login needs one at `cost`, whoever it is for, so
    /// that first login costs the same extra hash for a member as for a stranger.
    func checkLogin(_ password: String, against storedHash: String?, cost: PasswordCost) -> Bool {
        let decoy = self.decoy(at: cost)
        var matches = false
        for check in Self.loginChecks(storedHash: storedHash, cost: cost) {
            switch check {
            case .storedHash: matches = storedHash.map { verifyNow(password, against: $0) } ?? false
            case .decoy: _ = verifyNow(password, against: decoy)
            }
        }
        return matches
    }

    /// A hash of nothing anyone knows, at `cost`. Made outside the lock (it takes a hash's time);
    /// two logins that both find none make one each, and the first kept serves from then on.
    private func decoy(at cost: PasswordCost) -> String {
        if let made = decoys.withLock({ $0[cost] }) { return made }
        guard let made = Self.hash("decoy \(UInt64.random(in: .min ... .max))", at: cost) else { return "" }
        return decoys.withLock { decoys in
            if let first = decoys[cost] { return first }
            decoys[cost] = made
            return made
        }
    }
}
