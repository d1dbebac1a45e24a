/// Protobuf's wire format written by hand, for messages no encoder would produce.

/// A varint.
func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
        bytes.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
    }
    return bytes + [UInt8(value)]
}

func varint(_ value: Int) -> [UInt8] {
    varint(UInt64(value))
}

/// Field `number` with wire type 2 (bytes, strings, messages) holding `value`.
func lengthDelimited(_ number: UInt32, _ value: [UInt8]) -> [UInt8] {
    varint(UInt64(number) << 3 | 2) + varint(value.count) + value
}

/// Field `number` with wire type 0 (integers, bools, enums) holding `value`.
func varintField(_ number: UInt32, _ value: UInt64) -> [UInt8] {
    varint(UInt64(number) << 3) + varint(value)
}

/// `body` run on the bytes of `array`, its typed error passed through (`withUnsafeBytes` only
/// rethrows untyped errors, and the thunk between the two crashes Swift 6.3's code generation).
func withBytes<Result, Failure: Error>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
) throws(Failure) -> Result {
    try array.withUnsafeBufferPointer { (buffer) throws(Failure) in try body(UnsafeRawBufferPointer(buffer)) }
}
