import CProtobufC

/// Refuses, before protobuf-c unpacks a message, the strings it would quietly change: one that
/// holds U+0000 (protobuf-c hands strings to C, where a NUL ends them, so `ann\0x` would arrive
/// as `ann`), and one that is not UTF-8 (protobuf-c does not check, and Swift would repair it).
/// Every string field is checked, in nested messages too, and the refusal names it by its path
/// of proto field names (`history.entries.entry_id`).
enum StrictStrings {
    /// - Throws: INVALID_ARGUMENT naming the first string field that breaks the rules. Bytes
    ///   that are not a valid encoding are left for protobuf-c to refuse.
    static func check(
        _ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, path: String = ""
    ) throws(WaterError) {
        var reader = WireReader(bytes: bytes)
        while let tag = reader.varint() {
            let number = UInt32(truncatingIfNeeded: tag >> 3)
            switch tag & 7 {
            case 0: guard reader.varint() != nil else { return }
            case 1: guard reader.skip(8) else { return }
            case 5: guard reader.skip(4) else { return }
            case 2:
                guard let length = reader.varint(), let value = reader.take(Int(clamping: length)) else { return }
                guard let field = protobuf_c_message_descriptor_get_field(descriptor, number) else { continue }
                let name =
                    path.isEmpty
                    ? String(cString: field.pointee.name) : "\(path).\(String(cString: field.pointee.name))"
                switch field.pointee.type {
                case PROTOBUF_C_TYPE_STRING:
                    if let problem = problem(in: value) { throw WaterError.invalidField(name, problem) }
                case PROTOBUF_C_TYPE_MESSAGE:
                    let nested = field.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
                    try check(value, nested, path: name)
                default: continue
                }
            default: return
            }
        }
    }

    /// Why `text` is refused, or nil when it is UTF-8 without U+0000.
    static func problem(in text: UnsafeRawBufferPointer) -> String? {
        if text.contains(0) { return "text must not contain U+0000 (a NUL character)" }
        if String(validating: text, as: UTF8.self) == nil { return "text must be valid UTF-8" }
        return nil
    }

    /// The protobuf wire format, read forward; nil at the end or at a malformed byte.
    private struct WireReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard offset < bytes.count else { return nil }
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte < 0x80 { return value }
            }
            return nil
        }

        mutating func skip(_ count: Int) -> Bool {
            take(count) != nil
        }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
    }
}
