import Testing

@testable import WaterServer

/// The bytes a connection's socket has not taken, written through a socket that takes what the
/// test says: all, some, nothing (it would block), or an error.
@Suite("A connection's pending writes")
struct PendingWritesTests {
    /// A write that failed, as a reset connection's does.
    struct Reset: Error, Equatable {}

    /// A socket that takes at most the next of `takes` bytes per write, and what it took.
    struct Socket {
        var takes: [Int]
        var taken: [UInt8] = []

        mutating func write(_ bytes: UnsafeRawBufferPointer) -> Int {
            let count = min(takes.isEmpty ? 0 : takes.removeFirst(), bytes.count)
            taken += bytes.prefix(count)
            return count
        }
    }

    @Test("written whole when the socket takes it all, and empty after")
    func wroteAll() {
        var writes = PendingWrites()
        writes.append([1, 2, 3])
        writes.append([4, 5, 6, 7][1...])
        #expect(writes.count == 6)
        var socket = Socket(takes: [100])
        let wroteAll = writes.write { socket.write($0) }
        #expect(wroteAll)
        #expect(socket.taken == [1, 2, 3, 5, 6, 7])
        #expect(writes.isEmpty && writes.count == 0)
    }

    @Test("a socket that takes a little at a time, then nothing: the rest waits, from where it stopped")
    func partialWrites() {
        var writes = PendingWrites()
        writes.append(Array(1...10))
        var socket = Socket(takes: [3, 4])
        let wroteAll = writes.write { socket.write($0) }
        #expect(!wroteAll, "the socket would block")
        #expect(writes.count == 3 && socket.taken == Array(1...7))
        writes.append([11])
        socket.takes = [2, 2]
        let wroteRest = writes.write { socket.write($0) }
        #expect(wroteRest)
        #expect(socket.taken == Array(1...11))
    }

    @Test("a failed write is handed back, and nothing is lost from what waits")
    func failedWrite() {
        var writes = PendingWrites()
        writes.append([1, 2, 3])
        let result = Result { () throws(Reset) in try writes.write { (_) throws(Reset) in throw Reset() } }
        #expect(result == .failure(Reset()))
        #expect(writes.count == 3)
    }

    @Test("bytes taken whole are not copied: the buffer handed over comes back empty with the old capacity")
    func takenWhole() {
        var writes = PendingWrites()
        var replies: [UInt8] = Array(repeating: 7, count: 100)
        writes.take(&replies)
        #expect(replies.isEmpty && writes.count == 100)
        var socket = Socket(takes: [1000])
        let wroteAll = writes.write { socket.write($0) }
        #expect(wroteAll)
        #expect(socket.taken == Array(repeating: 7, count: 100))
    }
}
