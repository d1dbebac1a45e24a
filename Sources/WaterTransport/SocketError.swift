import Glibc
import WaterSystem

/// A failed socket call: the operation and the errno. Environment errors (ECONNRESET,
/// EADDRINUSE, ...) are thrown; errnos only a bug can cause (EBADF, EFAULT) trap.
public struct SocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// The operation and what the system said; `errno` 0 is a failure that has none (a name
    /// that does not resolve says why in its operation).
    public var description: String {
        errno == 0 ? operation : "\(operation): \(String(cString: strerror(errno)))"
    }
}

/// Calls a socket function, retrying on EINTR; a negative result becomes a ``SocketError``.
@discardableResult
func socketCall<T: BinaryInteger>(_ operation: String, _ call: () -> T) throws(SocketError) -> T {
    let (result, error) = retryingInterrupts(call)
    if result >= 0 { return result }
    precondition(error != EBADF && error != EFAULT, "\(operation): a bug (errno \(error))")
    throw SocketError(operation: operation, errno: error)
}
