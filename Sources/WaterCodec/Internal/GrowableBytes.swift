/// Bytes in memory of their own that stays where it is until the next mutation, so a pointer
/// into them may be handed out until then (``FrameDecoder``'s borrowed payloads), which an
/// Array promises only inside `withUnsafeBytes`. A value, copied on write, like Array.
package struct GrowableBytes: Sendable {
    /// Mutated only while uniquely referenced (see `makeUnique`), which is what makes the
    /// unchecked Sendable true.
    private final class Storage: @unchecked Sendable {
        var base: UnsafeMutableRawPointer?
        var capacity = 0
        var count = 0

        init() {}

        init(copying other: Storage) {
            reserve(other.capacity)
            if let from = other.base, other.count > 0 { base!.copyMemory(from: from, byteCount: other.count) }
            count = other.count
        }

        deinit {
            base?.deallocate()
        }

        /// Room for exactly `capacity` bytes, keeping the ones held.
        func reserve(_ capacity: Int) {
            guard capacity > self.capacity else { return }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            if let base {
                grown.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = grown
            self.capacity = capacity
        }

        func release() {
            base?.deallocate()
            base = nil
            capacity = 0
            count = 0
        }
    }

    private var storage = Storage()

    package init() {}

    package var count: Int { storage.count }
    package var capacity: Int { storage.capacity }

    /// The bytes, valid until the next mutating call.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.base, count: storage.count) }

    package subscript(offset: Int) -> UInt8 {
        precondition(offset >= 0 && offset < count, "offset \(offset) of \(count) bytes")
        return storage.base!.load(fromByteOffset: offset, as: UInt8.self)
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(copying: storage) }
    }

    /// Room for `capacity` bytes in all; growing doubles at least, so appends stay linear.
    package mutating func reserveCapacity(_ capacity: Int) {
        makeUnique()
        if capacity > storage.capacity { storage.reserve(max(capacity, 2 * storage.capacity)) }
    }

    package mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserveCapacity(count + bytes.count)
        (storage.base! + storage.count).copyMemory(from: source, byteCount: bytes.count)
        storage.count += bytes.count
    }

    /// Lets `body` write into the room after the bytes held (at least `minimumRoom` bytes of
    /// it) and keeps the count it returns.
    package mutating func appendInPlace<Result>(
        minimumRoom: Int, _ body: (UnsafeMutableRawBufferPointer) -> (written: Int, result: Result)
    ) -> Result {
        reserveCapacity(count + minimumRoom)
        let room = UnsafeMutableRawBufferPointer(start: storage.base! + storage.count, count: capacity - count)
        let (written, result) = body(room)
        precondition(written >= 0 && written <= room.count, "wrote \(written) into \(room.count) bytes")
        storage.count += written
        return result
    }

    /// Drops the first `removed` bytes, moving the rest to the front.
    package mutating func removeFirst(_ removed: Int) {
        precondition(removed >= 0 && removed <= count)
        guard removed > 0 else { return }
        makeUnique()
        let base = storage.base!
        base.copyMemory(from: base + removed, byteCount: count - removed)
        storage.count -= removed
    }

    /// Empties the bytes, and gives their memory back when it is more than `retainedCapacity`
    /// (a huge frame does not pin its memory for the life of the connection).
    package mutating func removeAll(retainingAtMost retainedCapacity: Int) {
        makeUnique()
        if storage.capacity > retainedCapacity { storage.release() } else { storage.count = 0 }
    }
}
