import WaterSync

/// Slows down password guessing: after failed logins for a username, the next attempt must
/// wait, longer after each failure (1 s, 2 s, 4 s, ... up to 5 minutes), until one succeeds.
/// Unknown usernames are throttled exactly like real ones, so the delay tells nothing.
public final class LoginThrottle: Sendable {
    public static let freeFailures = 3
    public static let maximumDelayMilliseconds: Int64 = 5 * 60 * 1000

    private struct Record {
        var failures = 0
        var blockedUntil: Int64 = 0
    }

    private let records = Locked<[String: Record]>([:])

    public init() {}

    /// When an attempt for `username` may be made again, or nil when it may be made now.
    public func retryAfter(_ username: String, now: Int64) -> Int64? {
        records.withLock { records in
            guard let record = records[username], record.blockedUntil > now else { return nil }
            return record.blockedUntil
        }
    }

    public func failed(_ username: String, now: Int64) {
        records.withLock { records in
            var record = records[username] ?? Record()
            record.failures += 1
            let over = record.failures - Self.freeFailures
            if over >= 0 {
                record.blockedUntil = now + min(1000 << min(over, 20), Self.maximumDelayMilliseconds)
            }
            records[username] = record
            // Forget the oldest entries when a scan of random names would grow the table.
            if records.count > 10_000 { records = records.filter { $0.value.blockedUntil > now } }
        }
    }

    public func succeeded(_ username: String) {
        records.withLock { $0[username] = nil }
    }
}
