import Glibc

/// Calls `call` again for as long as it fails with EINTR (a signal arrived before it did
/// anything): its result, and the errno it failed with (0 when it did not fail). Every system
/// call that can be interrupted goes through here, so none forgets to retry.
@inlinable
public func retryingInterrupts<T: BinaryInteger>(_ call: () -> T) -> (result: T, errno: Int32) {
    while true {
        let result = call()
        if result >= 0 { return (result, 0) }
        let error = errno
        if error != EINTR { return (result, error) }
    }
}
