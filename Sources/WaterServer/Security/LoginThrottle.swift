import WaterSync

/// Slows down password guessing without locking the owner out. Failures are counted per
/// (username, address) and per address: after a few failures, the next attempt from that
/// address must wait, longer after each failure (1 s, 2 s, 4 s, ... up to 5 minutes). A device
/// guessing someone's password therefore delays only itself: the owner logging in from their own
/// device is never refused. An address that fails for many usernames is slowed as a whole.
/// Unknown usernames are throttled exactly like real ones, so the delay tells nothing.
///
/// An attempt counts as a failure from the moment it is admitted, before its hash is done, and
/// only one attempt per (username, address) is admitted at a time: pipelining guesses gets no
/// more of them checked than sending them one by one. A success takes its own count back (and
/// its address's, but for the attempts still in flight, which stay counted).
public final class LoginThrottle: Sendable {
    /// Failures for one username from one address before attempts must wait.
    public static let freeFailures = 3
    /// Failures from one address, whatever the username, before all its attempts must wait.
    public static let freeFailuresPerAddress = 20
    public static let maximumDelayMilliseconds: Int64 = 5 * 60 * 1000
    /// The table's bound: past it, records no longer blocking anything are forgotten.
    static let maximumRecords = 10_000

    /// An admitted attempt, counted as a failure until ``settle(_:succeeded:)`` says otherwise.
    public struct Attempt: Sendable, Hashable {
        fileprivate let username: String
        fileprivate let address: String
    }

    /// Whether an attempt may go on to its hash.
    public enum Admission: Sendable, Equatable {
        case admitted(Attempt)
        /// Too many failures: no attempt before this time (Unix milliseconds).
        case waitUntil(Int64)
        /// The same username from the same address is being checked; wait for its answer.
        case alreadyInFlight
    }

    private enum Key: Hashable {
        case attempt(username: String, address: String)
        case address(String)
    }

    private struct Record {
        /// Failures, the attempts in flight included.
        var failures = 0
        var blockedUntil: Int64 = 0
        var inFlight = 0
    }

    /// The throttle's one lock: every record and every attempt in flight change under it.
    private let records = Locked<[Key: Record]>([:])

    public init() {}

    /// When `username` may be tried again from `address`, or nil when it may be now. Counts
    /// nothing: the check at the door, before a login waits for its hash.
    public func retryAfter(_ username: String, from address: String, now: Int64) -> Int64? {
        records.withLock { Self.blockedUntil(in: $0, Self.keys(username, address), now: now) }
    }

    /// Admits an attempt about to be hashed, counting it as a failure at once, or says why not.
    public func admit(_ username: String, from address: String, now: Int64) -> Admission {
        let (attemptKey, addressKey) = Self.keys(username, address)
        return records.withLock { records in
            if let until = Self.blockedUntil(in: records, (attemptKey, addressKey), now: now) {
                return .waitUntil(until)
            }
            guard records[attemptKey]?.inFlight ?? 0 == 0 else { return .alreadyInFlight }
            Self.count(&records[attemptKey, default: Record()], free: Self.freeFailures, now: now)
            Self.count(&records[addressKey, default: Record()], free: Self.freeFailuresPerAddress, now: now)
            // A scan of random names must not grow the table without bound.
            if records.count > Self.maximumRecords {
                records = records.filter { $0.value.blockedUntil > now || $0.value.inFlight > 0 }
            }
            return .admitted(Attempt(username: String(username.prefix(64)), address: address))
        }
    }

    /// The attempt's hash is done. A failure stays counted. The right password from the
    /// address starts it afresh, but for its other attempts still in flight. (Guesses at another
    /// member's password stay slowed by their own (username, address) count.)
    public func settle(_ attempt: Attempt, succeeded: Bool) {
        let (attemptKey, addressKey) = Self.keys(attempt.username, attempt.address)
        records.withLock { records in
            records[attemptKey]?.inFlight -= 1
            records[addressKey]?.inFlight -= 1
            guard succeeded else { return }
            records[attemptKey] = nil
            let stillInFlight = records[addressKey]?.inFlight ?? 0
            records[addressKey] = stillInFlight > 0 ? Record(failures: stillInFlight, inFlight: stillInFlight) : nil
        }
    }

    private static func blockedUntil(in records: [Key: Record], _ keys: (Key, Key), now: Int64) -> Int64? {
        let until = max(records[keys.0]?.blockedUntil ?? 0, records[keys.1]?.blockedUntil ?? 0)
        return until > now ? until : nil
    }

    private static func count(_ record: inout Record, free: Int, now: Int64) {
        record.failures += 1
        record.inFlight += 1
        let over = record.failures - free
        if over >= 0 { record.blockedUntil = now + min(1000 << min(over, 20), maximumDelayMilliseconds) }
    }

    /// Usernames are at most 32 characters; a longer one is kept by its prefix, so a guesser's
    /// megabyte-long names cost the table no more than real ones.
    private static func keys(_ username: String, _ address: String) -> (attempt: Key, address: Key) {
        (.attempt(username: String(username.prefix(64)), address: address), .address(address))
    }
}
