import Glibc

/// The wall clock, in the unit every time in the API and the archives uses.
public enum UnixTime {
    /// Milliseconds since 1970-01-01 UTC, by this machine's clock.
    public static func nowMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
