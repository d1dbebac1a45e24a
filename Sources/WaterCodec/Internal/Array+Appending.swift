extension Array where Element == UInt8 {
    /// Room for `count` more bytes, growing geometrically: `reserveCapacity` alone grows to
    /// exactly what is asked, which, called before every append, copies the array every time.
    @usableFromInline package mutating func reserveCapacity(forAppending count: Int) {
        let needed = self.count + count
        if needed > capacity { reserveCapacity(Swift.max(needed, 2 * capacity)) }
    }

    /// Appends `count` zero bytes for C code to write over (Array has no uninitialised room),
    /// copied from a page of zeros: appending a repeated element is generic code that, not
    /// specialised (a debug build), allocates per byte.
    mutating func appendZeros(_ count: Int) {
        reserveCapacity(forAppending: count)
        var left = count
        while left > 0 {
            let chunk = Swift.min(left, ZeroPage.shared.bytes.count)
            append(contentsOf: UnsafeRawBufferPointer(rebasing: ZeroPage.shared.bytes[..<chunk]))
            left -= chunk
        }
    }
}

/// 4 KiB of zeros, never written: shared by every thread.
private final class ZeroPage: @unchecked Sendable {
    static let shared = ZeroPage()
    let bytes: UnsafeRawBufferPointer

    private init() {
        let page = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        page.initializeMemory(as: UInt8.self, repeating: 0)
        bytes = UnsafeRawBufferPointer(page)
    }
}
