import CProtobufC

/// The one pass over a peer's message before protobuf-c unpacks it, in time proportional to its
/// bytes and with no allocation unless it refuses:
///
/// - Strict strings: refuses the strings protobuf-c would quietly change: one that holds
///   U+0000 (protobuf-c hands strings to C, where a NUL ends them, so `ann\0x` would arrive as
///   `ann`), and one that is not UTF-8 (protobuf-c does not check, and Swift would repair it).
///   Every string field is checked, in nested messages too.
/// - ``DecodeLimits``: counts every field, unknown ones too, the nesting, and the occurrences
///   of each singular field, and refuses past a limit before any other work is done per field.
///
/// A refusal names the field at fault by its path of proto field names
/// (`history.entries.entry_id`), a string made only then.
enum WireCheck {
    /// - Throws: ``DecodeError/Code/malformed`` naming the first string field that breaks the
    ///   rules, a field repeated too often or nested too deep; ``DecodeError/Code/tooLarge`` for
    ///   too many fields. Bytes that are not a valid encoding are left for protobuf-c to refuse.
    static func check(
        _ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, limits: DecodeLimits
    ) throws(DecodeError) {
        var fieldsLeft = limits.maximumFieldCount
        do {
            try checkMessage(bytes, descriptor, depth: 1, limits: limits, fieldsLeft: &fieldsLeft)
        } catch {
            throw error.decodeError(message: descriptor, limits: limits)
        }
    }

    private static func checkMessage(
        _ bytes: UnsafeRawBufferPointer, _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int,
        limits: DecodeLimits, fieldsLeft: inout Int
    ) throws(Refusal) {
        let fields = descriptor.pointee.fields  // nil for a message without fields
        // On the stack: how often each singular field has occurred so far.
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: Int(descriptor.pointee.n_fields)) {
            (occurrences) throws(Refusal) in
            occurrences.initialize(repeating: 0)
            var reader = WireReader(bytes: bytes)
            while let tag = reader.varint() {
                guard fieldsLeft > 0 else { throw Refusal(.tooManyFields) }
                fieldsLeft -= 1
                var value = UnsafeRawBufferPointer(start: nil, count: 0)
                switch tag & 7 {
                case 0: guard reader.varint() != nil else { return }
                case 1: guard reader.skip(8) else { return }
                case 5: guard reader.skip(4) else { return }
                case 2:
                    guard let length = reader.varint(), let taken = reader.take(Int(clamping: length)) else { return }
                    value = taken
                default: return  // groups and undefined wire types: protobuf-c refuses them
                }
                let number = UInt32(truncatingIfNeeded: tag >> 3)
                guard let field = protobuf_c_message_descriptor_get_field(descriptor, number) else { continue }
                if field.pointee.label != PROTOBUF_C_LABEL_REPEATED {
                    let index = fields!.distance(to: field)
                    occurrences[index] += 1
                    guard occurrences[index] <= limits.maximumSingularOccurrences else {
                        throw Refusal(.repeatedSingular, at: field)
                    }
                }
                guard tag & 7 == 2 else { continue }
                switch field.pointee.type {
                case PROTOBUF_C_TYPE_STRING:
                    if let problem = problem(in: value) { throw Refusal(.text(problem), at: field) }
                case PROTOBUF_C_TYPE_MESSAGE:
                    guard depth < limits.maximumDepth else { throw Refusal(.tooDeep, at: field) }
                    let nested = field.pointee.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
                    do throws(Refusal) {
                        try checkMessage(value, nested, depth: depth + 1, limits: limits, fieldsLeft: &fieldsLeft)
                    } catch {
                        throw error.inside(field)
                    }
                default: continue
                }
            }
        }
    }

    /// Why `text` is refused, or nil when it is UTF-8 without U+0000.
    static func problem(in text: UnsafeRawBufferPointer) -> String? {
        if text.contains(0) { return "text must not contain U+0000 (a NUL character)" }
        if !UTF8Validation.isValid(text) { return "text must be valid UTF-8" }
        return nil
    }

    /// A refusal on its way out of the nested checks, with the fields it passed through.
    private struct Refusal: Error {
        enum Reason {
            case text(String)
            case tooManyFields
            case tooDeep
            case repeatedSingular
        }

        var reason: Reason
        /// The name of the field at fault and of the fields of the messages around it,
        /// innermost first.
        var path: [String] = []

        init(_ reason: Reason, at field: UnsafePointer<ProtobufCFieldDescriptor>? = nil) {
            self.reason = reason
            if let field { path.append(String(cString: field.pointee.name)) }
        }

        func inside(_ field: UnsafePointer<ProtobufCFieldDescriptor>) -> Refusal {
            var outer = self
            if !outer.path.isEmpty { outer.path.append(String(cString: field.pointee.name)) }
            return outer
        }

        func decodeError(message: UnsafePointer<ProtobufCMessageDescriptor>, limits: DecodeLimits) -> DecodeError {
            let field = path.reversed().joined(separator: ".")
            switch reason {
            case .text(let problem):
                return DecodeError(.malformed, problem, field: field)
            case .tooManyFields:
                return DecodeError(
                    .tooLarge,
                    "a \(String(cString: message.pointee.short_name)) may hold at most "
                        + "\(limits.maximumFieldCount) fields, nested and unknown ones included; send less at once")
            case .tooDeep:
                return DecodeError(
                    .malformed, "messages may be nested at most \(limits.maximumDepth) deep", field: field)
            case .repeatedSingular:
                return DecodeError(
                    .malformed,
                    "a field that is not repeated may occur at most \(limits.maximumSingularOccurrences) times",
                    field: field)
            }
        }
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
