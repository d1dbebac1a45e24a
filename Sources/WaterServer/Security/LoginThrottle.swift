import WaterSync

/// Slows down password guessing without locking the owner out. Failures are counted per
/// (username, address) and per address: after a few failures, the next attempt from that
/// address must wait, longer after each failure (1 s, 2 s, 4 s, ... up to 5 minutes). A device
/// guessing someone's password therefore delays only itself: the owner logging in from their own
/// device is never refused. An address that fails for many usernames is slowed as a whole.
/// Unknown usernames are throttled exactly like real ones, so the delay tells nothing.
public final class LoginThrottle: Sendable {
    /// Failures for one username from one address before attempts must wait.
    public static let freeFailures = 3
    /// Failures from one address, whatever the username, before all its attempts must wait.
    public static let freeFailuresPerAddress = 20
    public static let maximumDelayMilliseconds: Int64 = 5 * 60 * 1000
    /// The table's bound: past it, records no longer blocking anything are forgotten.
    static let maximumRecords = 10_000

    private enum Key: Hashable {
        case attempt(username: String, address: String)
        case address(String)
    }

    private struct Record {
        var failures = 0
        var blockedUntil: Int64 = 0
    }

    private let records = Locked<[Key: Record]>([:])

    public init() {}

    /// When `username` may be tried again from `address`, or nil when it may be now.
    public func retryAfter(_ username: String, from address: String, now: Int64) -> Int64? {
        records.withLock { records in
            let until = [Self.key(username, address), .address(address)].compactMap { records[$0]?.blockedUntil }.max()
            guard let until, until > now else { return nil }
            return until
        }
    }

    public func failed(_ username: String, from address: String, now: Int64) {
        records.withLock { records in
            Self.count(&records[Self.key(username, address), default: Record()], free: Self.freeFailures, now: now)
            Self.count(&records[.address(address), default: Record()], free: Self.freeFailuresPerAddress, now: now)
            // A scan of random names must not grow the table without bound.
            if records.count > Self.maximumRecords { records = records.filter { $0.value.blockedUntil > now } }
        }
    }

    /// The right password from `address`: that address starts afresh. (Guesses at another
    /// member's password stay slowed by their own (username, address) count.)
    public func succeeded(_ username: String, from address: String) {
        records.withLock { records in
            records[Self.key(username, address)] = nil
            records[.address(address)] = nil
        }
    }

    private static func count(_ record: inout Record, free: Int, now: Int64) {
        record.failures += 1
        let over = record.failures - free
        if over >= 0 { record.blockedUntil = now + min(1000 << min(over, 20), maximumDelayMilliseconds) }
    }

    /// Usernames are at most 32 characters; a longer one is kept by its prefix, so a guesser's
    /// megabyte-long names cost the table no more than real ones.
    private static func key(_ username: String, _ address: String) -> Key {
        .attempt(username: String(username.prefix(64)), address: address)
    }
}
