import Glibc

/// Asks `condition` until it holds, sleeping `interval` between asks, for at most `seconds`:
/// how a test waits for a state it can only look at (a file, a count), stopping as soon as it
/// holds. The bound is for a process that is stuck, never for a slow machine, so it is
/// generous. Whether the condition held.
public func waitUntil(
    seconds: Int = 30, every interval: Duration = .milliseconds(10), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        if try condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        let (seconds, attoseconds) = interval.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
}
