/// Finds a name among a fixed set by its UTF-8 bytes, with no String made: a hash of the bytes
/// picks a slot of an open-addressing table built once, then the bytes are compared with the
/// name's. What ``MethodTable`` looks an envelope's method up in, once per call.
struct MethodNameIndex: Sendable {
    /// Every name's bytes, one after another.
    private let bytes: [UInt8]
    /// Where each name's bytes are in `bytes`, by the name's index.
    private let ranges: [Range<Int>]
    /// A power of two of slots, at least four per name so probes stay short: a name's index,
    /// or -1 for an empty slot.
    private let slots: [Int32]

    init(names: [String]) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for name in names {
            ranges.append(bytes.count..<(bytes.count + name.utf8.count))
            bytes += name.utf8
        }
        var slots = [Int32](repeating: -1, count: max(8, (4 * names.count).nextPowerOfTwo))
        for (index, range) in ranges.enumerated() {
            var slot = bytes[range].withUnsafeBytes { Self.hash($0) } & (slots.count - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = Int32(index)
        }
        self.bytes = bytes
        self.ranges = ranges
        self.slots = slots
    }

    /// The index of the name whose bytes these are, or nil.
    func index(of name: UnsafeRawBufferPointer) -> Int? {
        var slot = Self.hash(name) & (slots.count - 1)
        while slots[slot] >= 0 {
            let index = Int(slots[slot])
            if bytes[ranges[index]].withUnsafeBytes({ $0.elementsEqual(name) }) { return index }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// FNV-1a, 64-bit: a few instructions a byte, and these names are fixed, not chosen by
    /// whoever sends one (a peer can only make its own lookup probe a few slots longer).
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int(truncatingIfNeeded: hash)
    }
}

extension Int {
    /// The smallest power of two not below this (positive) number.
    fileprivate var nextPowerOfTwo: Int {
        var power = 1
        while power < self { power *= 2 }
        return power
    }
}
