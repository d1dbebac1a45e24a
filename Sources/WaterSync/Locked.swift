import Glibc

/// A value that threads share, guarded by a pthread mutex: the one way this project shares
/// mutable state between threads.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with a futex that ThreadSanitizer cannot
/// see, so TSan reports every access made under it as a race (reproduced with a ten-line
/// program and Swift 6.3.1), and a suite full of false reports hides the real ones. A pthread
/// mutex is what TSan understands; it costs the same when uncontended.
///
/// - Important: Keep the work in `body` short and never wait in it for another thread that
///   may need this lock.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // - 0: done. Anything else means no memory for a mutex: nothing to recover.
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
