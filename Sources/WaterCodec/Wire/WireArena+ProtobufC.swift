import CProtobufC

extension WireArena {
    /// Unpacks `bytes` as a message of `descriptor` with protobuf-c, everything it allocates
    /// taken from this arena (its `free` does nothing: the next reset frees it all, so
    /// `protobuf_c_message_free_unpacked` is never called).
    /// - Returns: the message struct, valid until the next reset; nil when the bytes are not a
    ///   valid encoding, or (`overBudget`) when they would need more than `budget` bytes.
    func unpack(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, from bytes: UnsafeRawBufferPointer, budget: Int
    ) -> (message: UnsafeMutablePointer<ProtobufCMessage>?, overBudget: Bool) {
        unpackAllocated = 0
        unpackBudget = budget
        defer { unpackBudget = 0 }
        var allocator = ProtobufCAllocator(
            alloc: allocateForProtobufC, free: freeForProtobufC,
            allocator_data: Unmanaged.passUnretained(self).toOpaque())
        // - NULL: the bytes are not a valid encoding, or an allocation was refused.
        let message = protobuf_c_message_unpack(
            descriptor, &allocator, bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        return (message, unpackAllocated > unpackBudget)
    }
}

/// protobuf-c's `alloc`: from the arena, within the unpack's budget (past it, NULL, which makes
/// the unpack fail; the overshoot is recorded so the caller can say why).
private func allocateForProtobufC(_ data: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    // The arena outlives the unpack that passed it: no retain and release per allocation.
    Unmanaged<WireArena>.fromOpaque(data!)._withUnsafeGuaranteedRef { arena in
        let (allocated, overflow) = arena.unpackAllocated.addingReportingOverflow(size)
        arena.unpackAllocated = overflow ? .max : allocated
        return arena.unpackAllocated <= arena.unpackBudget ? arena.allocate(byteCount: size) : nil
    }
}

/// protobuf-c's `free`: nothing; the arena's reset frees everything at once.
private func freeForProtobufC(_ data: UnsafeMutableRawPointer?, _ pointer: UnsafeMutableRawPointer?) {}
