/// Memory for protobuf-c message structs, packed bytes and decoded messages: bump allocation in
/// blocks that are kept across ``reset()``, so that once it has warmed up, encoding and decoding
/// a message allocate nothing from the heap.
///
/// Everything allocated is zeroed and lives until the next ``reset()``, which invalidates every
/// pointer handed out before (the builder's structs, ``WireCodec`` views, a
/// ``RequestEnvelopeView``'s buffers). After a message that needed more than one block, reset
/// replaces the blocks by one that holds it all, up to ``maximumRetainedBytes``; a larger one is
/// released, so one huge message does not pin its memory for the life of the connection.
///
/// What a peer's bytes may make protobuf-c allocate here is capped per message (see
/// ``DecodeLimits/maximumMemoryPerByte``); the builder stores values this program already holds.
///
/// - Important: An arena has one owner, the event loop or the connection that resets it; it is
///   not `Sendable`, and nothing allocated in it may be used after the owner resets it.
public final class WireArena {
    /// The first block's size, and the smallest block kept after a reset.
    public let initialBlockSize: Int
    /// The most memory kept across a reset; more is released.
    public let maximumRetainedBytes: Int

    /// The block being filled; the blocks filled before it (rare) are in `fullBlocks`.
    private var block: Block?
    private var fullBlocks: [Block] = []
    /// Bytes handed out from `block`.
    private var offset = 0
    /// Bytes handed out since the last reset, in every block.
    public private(set) var bytesInUse = 0

    /// The unpack in progress: what protobuf-c has allocated for it and may still allocate.
    var unpackAllocated = 0
    var unpackBudget = 0

    /// Every allocation is rounded up to this, which protobuf-c's structs (and malloc) assume.
    static let alignment = 16

    /// - Parameters:
    ///   - initialBlockSize: the first block, allocated on first use (a LogWater call and its
    ///     reply take under 1 KiB).
    ///   - maximumRetainedBytes: the most a reset keeps.
    public init(initialBlockSize: Int = 4096, maximumRetainedBytes: Int = 64 * 1024) {
        precondition(initialBlockSize > 0 && maximumRetainedBytes >= initialBlockSize)
        self.initialBlockSize = initialBlockSize
        self.maximumRetainedBytes = maximumRetainedBytes
    }

    deinit {
        block?.deallocate()
        for full in fullBlocks { full.deallocate() }
    }

    /// Bytes the arena holds from the heap, in use or not.
    public var capacity: Int { (block?.capacity ?? 0) + fullBlocks.reduce(0) { $0 + $1.capacity } }

    /// Zeroed memory of `byteCount` bytes, aligned for any C scalar or pointer, valid until the
    /// next ``reset()``.
    package func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let size = (max(byteCount, 1) + Self.alignment - 1) & ~(Self.alignment - 1)
        if block == nil || offset + size > block!.capacity { startBlock(holding: size) }
        let pointer = block!.base + offset
        offset += size
        bytesInUse += size
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        return pointer
    }

    /// Makes every allocation available again; pointers handed out before are dangling.
    public func reset() {
        defer {
            offset = 0
            bytesInUse = 0
        }
        guard !fullBlocks.isEmpty || (block?.capacity ?? 0) > maximumRetainedBytes else { return }
        // More than one block, or one too large: one block for what the last message needed.
        let needed = bytesInUse
        block?.deallocate()
        for full in fullBlocks { full.deallocate() }
        fullBlocks.removeAll()
        block = nil
        guard needed > 0 else { return }
        var size = initialBlockSize
        while size < needed, size < maximumRetainedBytes { size *= 2 }
        block = Block(capacity: min(size, maximumRetainedBytes))
    }

    /// Moves to a new block at least twice the size of the one that is full.
    private func startBlock(holding size: Int) {
        var capacity = initialBlockSize
        if let full = block {
            fullBlocks.append(full)
            capacity = full.capacity * 2
        }
        while capacity < size { capacity *= 2 }
        block = Block(capacity: capacity)
        offset = 0
    }

    private struct Block {
        let base: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: WireArena.alignment)
        }

        func deallocate() {
            base.deallocate()
        }
    }
}

@available(*, unavailable, message: "a WireArena belongs to one event loop or connection")
extension WireArena: Sendable {}

extension WireArena {
    /// A NUL-terminated copy of the string's UTF-8 bytes, as protobuf-c's `char *` fields want.
    func copy(string: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = string.utf8
        let block = allocate(byteCount: utf8.count + 1)  // zeroed: the NUL is there already
        let copied: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            if let base = bytes.baseAddress { block.copyMemory(from: base, byteCount: bytes.count) }
        }
        if copied == nil {
            // A string not stored as UTF-8 (bridged); Linux has none, but copy it byte by byte.
            for (index, byte) in utf8.enumerated() { block.storeBytes(of: byte, toByteOffset: index, as: UInt8.self) }
        }
        return block.assumingMemoryBound(to: CChar.self)
    }

    /// A copy of the bytes, or nil for none (protobuf-c's `ProtobufCBinaryData` convention).
    func copy(bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8>? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        let block = allocate(byteCount: bytes.count)
        block.copyMemory(from: base, byteCount: bytes.count)
        return block.assumingMemoryBound(to: UInt8.self)
    }
}
