/// Whether bytes are well-formed UTF-8, checked in place: `String(validating:)` would allocate
/// a string for every field it checks.
enum UTF8Validation {
    /// Well-formed as Unicode's table 3-7 defines it: no overlong forms, no surrogates, nothing
    /// past U+10FFFF, no sequence cut short. ASCII goes eight bytes at a time.
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count,
                base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
                continue
            }
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0x80 {
                index += 1
                continue
            }
            // The sequence's length and the range its second byte must be in; the others are
            // all 0x80...0xBF.
            let length: Int
            var second: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, second) = (3, 0x80...0x9F)  // not the surrogates
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, second) = (4, 0x80...0x8F)  // not past U+10FFFF
            default: return false  // a continuation byte, an overlong lead (C0, C1) or F5...FF
            }
            guard count - index >= length, second.contains(base.load(fromByteOffset: index + 1, as: UInt8.self))
            else { return false }
            for offset in 2..<length where base.load(fromByteOffset: index + offset, as: UInt8.self) & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }
}
