import CProtobufC

/// Reads the fields of an unpacked protobuf-c message struct; a nil `storage` stands for an
/// absent submessage, whose every field reads as its proto3 default.
package struct MessageReader {
    @usableFromInline let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    @usableFromInline let storage: UnsafeRawPointer?

    @usableFromInline init(descriptor: UnsafePointer<ProtobufCMessageDescriptor>, storage: UnsafeRawPointer?) {
        self.descriptor = descriptor
        self.storage = storage
    }

    /// The descriptor of the field at `index` (fields sorted by number, as protoc-c lays them).
    @usableFromInline func field(at index: Int) -> UnsafePointer<ProtobufCFieldDescriptor> {
        precondition(index >= 0 && index < Int(descriptor.pointee.n_fields), "field index \(index)")
        return descriptor.pointee.fields + index
    }

    /// The value of the singular field at `index`.
    package func value(at index: Int) -> FieldValue {
        let field = field(at: index)
        return FieldValue.load(from: storage.map { $0 + Int(field.pointee.offset) }, type: field.pointee.type)
    }

    /// The submessage of the singular field at `index`, or nil when it is absent.
    @inlinable package func message<Message: WireMessage>(at index: Int, as type: Message.Type) -> Message? {
        guard case .message(let pointer?) = value(at: index) else { return nil }
        return Message(wire: MessageReader(descriptor: submessageDescriptor(field(at: index)), storage: pointer))
    }

    // MARK: Repeated fields: each element read straight into the Swift array.

    /// The elements of the repeated field at `index`: its count and the address of its C array.
    @usableFromInline func repeatedArray(at index: Int) -> (
        field: UnsafePointer<ProtobufCFieldDescriptor>, count: Int, array: UnsafeRawPointer?
    ) {
        let field = field(at: index)
        precondition(field.pointee.label == PROTOBUF_C_LABEL_REPEATED, "field \(index) is singular")
        guard let storage else { return (field, 0, nil) }
        let count = (storage + Int(field.pointee.quantifier_offset)).loadUnaligned(as: Int.self)
        let array = (storage + Int(field.pointee.offset)).loadUnaligned(as: UnsafeRawPointer?.self)
        return (field, array == nil ? 0 : count, array)
    }

    /// A repeated field of numbers in one copy: `Element` has the layout of the field's C type
    /// (the generator only asks so). Snapshot columns hold hundreds of thousands of numbers.
    @inlinable package func numbers<Element>(at index: Int, as element: Element.Type) -> [Element] {
        let (field, count, array) = repeatedArray(at: index)
        precondition(FieldValue.size(of: field.pointee.type) == MemoryLayout<Element>.stride, "field layout")
        guard let array, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: array.assumingMemoryBound(to: Element.self), count: count))
    }

    /// The elements of the repeated field at `index`, each read as `FieldValue.load` reads one.
    @inlinable package func values<Element>(at index: Int, _ read: (FieldValue) -> Element) -> [Element] {
        let (field, count, array) = repeatedArray(at: index)
        guard let array else { return [] }
        let size = FieldValue.size(of: field.pointee.type)
        var values: [Element] = []
        values.reserveCapacity(count)
        for offset in 0..<count {
            values.append(read(FieldValue.load(from: array + offset * size, type: field.pointee.type)))
        }
        return values
    }

    /// The submessages of the repeated field at `index`.
    @inlinable package func messages<Message: WireMessage>(at index: Int, as type: Message.Type) -> [Message] {
        let (field, count, array) = repeatedArray(at: index)
        guard let array else { return [] }
        let descriptor = submessageDescriptor(field)
        var messages: [Message] = []
        messages.reserveCapacity(count)
        for offset in 0..<count {
            let pointer = array.loadUnaligned(fromByteOffset: offset * 8, as: UnsafeRawPointer?.self)
            messages.append(Message(wire: MessageReader(descriptor: descriptor, storage: pointer)))
        }
        return messages
    }

    @usableFromInline func submessageDescriptor(
        _ field: UnsafePointer<ProtobufCFieldDescriptor>
    ) -> UnsafePointer<ProtobufCMessageDescriptor> {
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
