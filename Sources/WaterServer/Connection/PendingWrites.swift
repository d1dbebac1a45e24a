/// The bytes for a connection's socket that it has not taken yet: replies released by the
/// ``ReplyQueue`` (as ciphertext over TLS), and the TLS layer's own records. A value with no
/// socket, as SwiftNIO's `PendingWritesManager` is: the connection owns it and hands it the
/// socket's write call; the tests hand it one that takes what they say.
struct PendingWrites {
    private var bytes: [UInt8] = []
    /// How much of ``bytes`` the socket has taken.
    private var written = 0

    /// How many bytes the socket has not taken.
    var count: Int { bytes.count - written }
    var isEmpty: Bool { written == bytes.count }

    mutating func append(_ more: [UInt8]) {
        bytes += more
    }

    mutating func append(_ more: ArraySlice<UInt8>) {
        bytes.append(contentsOf: more)
    }

    /// Takes `more` whole in place of its own empty buffer, whose capacity `more` gets back:
    /// nothing is copied. Only while nothing waits.
    mutating func take(_ more: inout [UInt8]) {
        precondition(isEmpty, "bytes taken whole would jump the queue")
        bytes.removeAll(keepingCapacity: true)
        written = 0
        swap(&bytes, &more)
    }

    /// Hands the unwritten bytes to `write` (the socket's: returns how many it took, 0 when it
    /// would block) until all are written or it takes no more: returns whether all were. Once
    /// all are, the buffer is emptied, keeping its capacity unless a burst made it larger than
    /// 1 MiB. What `write` throws is thrown, and what it did not take stays.
    mutating func write<Failure: Error>(_ write: (UnsafeRawBufferPointer) throws(Failure) -> Int) throws(Failure)
        -> Bool
    {
        while written < bytes.count {
            let start = written
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(Failure) in try write(UnsafeRawBufferPointer(rebasing: raw[start...])) }
            }
            switch result {
            case .success(0): return false
            case .success(let count): written += count
            case .failure(let error): throw error
            }
        }
        bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
        written = 0
        return true
    }
}
