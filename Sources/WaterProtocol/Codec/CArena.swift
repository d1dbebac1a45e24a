import CProtobufC

/// Owns the C memory of a protobuf-c message built from Swift values: the message structs, the
/// repeated arrays, the strings and the bytes. Everything is freed together by
/// ``releaseAll()``, called in the same scope that built and packed the message.
final class CArena {
    private var blocks: [UnsafeMutableRawPointer] = []

    /// Zeroed memory of `byteCount` bytes, aligned for any C scalar or pointer.
    func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
        blocks.append(block)
        return block
    }

    /// A NUL-terminated copy of the string's UTF-8 bytes, as protobuf-c's `char *` fields want.
    func copy(string: String) -> UnsafeMutablePointer<CChar> {
        var utf8 = Array(string.utf8)
        utf8.append(0)
        let block = allocate(byteCount: utf8.count)
        block.copyMemory(from: utf8, byteCount: utf8.count)
        return block.assumingMemoryBound(to: CChar.self)
    }

    /// A copy of the bytes, or nil for none (protobuf-c's `ProtobufCBinaryData` convention).
    func copy(bytes: [UInt8]) -> UnsafeMutablePointer<UInt8>? {
        guard !bytes.isEmpty else { return nil }
        let block = allocate(byteCount: bytes.count)
        block.copyMemory(from: bytes, byteCount: bytes.count)
        return block.assumingMemoryBound(to: UInt8.self)
    }

    /// Frees every block. Pointers handed out before are dangling afterwards.
    func releaseAll() {
        for block in blocks { block.deallocate() }
        blocks.removeAll()
    }

    deinit {
        releaseAll()
    }
}
