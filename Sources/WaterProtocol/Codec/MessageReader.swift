import CProtobufC

/// Reads the fields of an unpacked protobuf-c message struct; a nil `storage` stands for an
/// absent submessage, whose every field reads as its proto3 default.
package struct MessageReader {
    let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    let storage: UnsafeRawPointer?

    /// The descriptor of the field at `index` (fields sorted by number, as protoc-c lays them).
    func field(at index: Int) -> UnsafePointer<ProtobufCFieldDescriptor> {
        precondition(index >= 0 && index < Int(descriptor.pointee.n_fields), "field index \(index)")
        return descriptor.pointee.fields + index
    }

    /// How many elements a repeated field holds.
    func count(of field: UnsafePointer<ProtobufCFieldDescriptor>) -> Int {
        guard let storage, field.pointee.label == PROTOBUF_C_LABEL_REPEATED else { return 0 }
        return (storage + Int(field.pointee.quantifier_offset)).loadUnaligned(as: Int.self)
    }

    /// The value of a singular field, or element `index` of a repeated one.
    func value(of field: UnsafePointer<ProtobufCFieldDescriptor>, at index: Int? = nil) -> FieldValue {
        guard let storage else { return FieldValue.load(from: nil, type: field.pointee.type) }
        let address = storage + Int(field.pointee.offset)
        guard let index else { return FieldValue.load(from: address, type: field.pointee.type) }
        let array = address.loadUnaligned(as: UnsafeRawPointer?.self)
        return FieldValue.load(
            from: array.map { $0 + index * FieldValue.size(of: field.pointee.type) },
            type: field.pointee.type)
    }

    /// A repeated field of numbers in one copy: `Element` has the layout of the field's C type
    /// (the generator only asks so). Snapshot columns hold hundreds of thousands of numbers.
    package func numbers<Element>(at index: Int, as element: Element.Type) -> [Element] {
        let field = field(at: index)
        precondition(FieldValue.size(of: field.pointee.type) == MemoryLayout<Element>.stride, "field layout")
        let count = count(of: field)
        guard count > 0,
            let base = storage.flatMap({ ($0 + Int(field.pointee.offset)).loadUnaligned(as: UnsafeRawPointer?.self) })
        else { return [] }
        return Array(UnsafeBufferPointer(start: base.assumingMemoryBound(to: Element.self), count: count))
    }

    /// The value of the singular field at `index`.
    package func value(at index: Int) -> FieldValue {
        value(of: field(at: index))
    }

    /// The elements of the repeated field at `index`.
    package func values(at index: Int) -> [FieldValue] {
        let field = field(at: index)
        return (0..<count(of: field)).map { value(of: field, at: $0) }
    }

    /// The submessage of the singular field at `index`, or nil when it is absent.
    package func message(at index: Int) -> MessageReader? {
        let field = field(at: index)
        guard case .message(let pointer?) = value(of: field) else { return nil }
        return MessageReader(descriptor: submessageDescriptor(field), storage: pointer)
    }

    /// The submessages of the repeated field at `index`.
    package func messages(at index: Int) -> [MessageReader] {
        let field = field(at: index)
        let descriptor = submessageDescriptor(field)
        return (0..<count(of: field)).map { element in
            guard case .message(let pointer) = value(of: field, at: element) else {
                preconditionFailure("not a message")
            }
            return MessageReader(descriptor: descriptor, storage: pointer)
        }
    }

    private func submessageDescriptor(_ field: UnsafePointer<ProtobufCFieldDescriptor>) -> UnsafePointer<
        ProtobufCMessageDescriptor
    > {
        guard let raw = field.pointee.descriptor else {
            preconditionFailure("field \(String(cString: field.pointee.name)) is not a message")
        }
        return raw.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
    }
}

extension FieldValue {
    // What a generated initializer asks of a field value: protobuf-c has already checked the
    // wire types, so each value is of the kind its field declares.
    package var int32: Int32 { if case .signed(let v) = self { Int32(truncatingIfNeeded: v) } else { 0 } }
    package var int64: Int64 { if case .signed(let v) = self { v } else { 0 } }
    package var uint32: UInt32 { if case .unsigned(let v) = self { UInt32(truncatingIfNeeded: v) } else { 0 } }
    package var uint64: UInt64 { if case .unsigned(let v) = self { v } else { 0 } }
    package var bool: Bool { if case .bool(let v) = self { v } else { false } }
    package var double: Double { if case .double(let v) = self { v } else { 0 } }
    package var float: Float { if case .float(let v) = self { v } else { 0 } }
    package var string: String { if case .string(let v) = self { v } else { "" } }
    package var bytes: [UInt8] { if case .bytes(let v) = self { v } else { [] } }
}
