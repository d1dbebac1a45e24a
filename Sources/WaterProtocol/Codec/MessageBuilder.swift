import CProtobufC

/// A protobuf-c message struct being filled from Swift values, with its C memory in an arena.
package final class MessageBuilder {
    let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    let storage: UnsafeMutableRawPointer
    let arena: CArena

    /// Allocates the struct and runs protoc-c's `message_init`, which sets every default.
    init(descriptor: UnsafePointer<ProtobufCMessageDescriptor>, arena: CArena) {
        self.descriptor = descriptor
        self.arena = arena
        self.storage = arena.allocate(byteCount: descriptor.pointee.sizeof_message)
        descriptor.pointee.message_init(storage.assumingMemoryBound(to: ProtobufCMessage.self))
    }

    /// The descriptor of the field at `index` (protoc-c sorts a message's fields by number;
    /// the generated code knows each field's place).
    func field(at index: Int) -> UnsafePointer<ProtobufCFieldDescriptor> {
        precondition(index >= 0 && index < Int(descriptor.pointee.n_fields), "field index \(index)")
        return descriptor.pointee.fields + index
    }

    /// A builder for the submessage of the field at `index`.
    package func child(at index: Int) -> MessageBuilder {
        child(for: field(at: index))
    }

    /// Stores one singular field's value.
    package func set(_ value: FieldValue, at index: Int) {
        let field = field(at: index)
        precondition(field.pointee.label == PROTOBUF_C_LABEL_NONE, "field \(index) is repeated")
        value.store(at: storage + Int(field.pointee.offset), type: field.pointee.type, arena: arena)
    }

    /// Stores a repeated field's values.
    package func set(_ values: [FieldValue], at index: Int) {
        set(values, for: field(at: index))
    }

    /// Stores a repeated field of numbers in one copy: `Element` has the layout of the field's
    /// C type (the generator only calls it so).
    package func setNumbers<Element: BinaryInteger & FixedWidthInteger>(_ elements: [Element], at index: Int) {
        storeArray(elements, for: field(at: index))
    }

    package func setNumbers(_ elements: [Double], at index: Int) {
        storeArray(elements, for: field(at: index))
    }

    package func setNumbers(_ elements: [Float], at index: Int) {
        storeArray(elements, for: field(at: index))
    }

    private func storeArray<Element>(_ elements: [Element], for field: UnsafePointer<ProtobufCFieldDescriptor>) {
        precondition(
            field.pointee.label == PROTOBUF_C_LABEL_REPEATED
                && FieldValue.size(of: field.pointee.type) == MemoryLayout<Element>.stride, "field layout")
        let array = arena.allocate(byteCount: MemoryLayout<Element>.stride * elements.count)
        elements.withUnsafeBytes { if let base = $0.baseAddress { array.copyMemory(from: base, byteCount: $0.count) } }
        (storage + Int(field.pointee.quantifier_offset)).storeBytes(of: elements.count, as: Int.self)
        (storage + Int(field.pointee.offset)).storeBytes(
            of: elements.isEmpty ? nil : UnsafeRawPointer(array),
            as: UnsafeRawPointer?.self)
    }

    /// A builder for a submessage of `field`, in the same arena.
    func child(for field: UnsafePointer<ProtobufCFieldDescriptor>) -> MessageBuilder {
        guard let raw = field.pointee.descriptor else {
            preconditionFailure("field \(String(cString: field.pointee.name)) is not a message")
        }
        return MessageBuilder(descriptor: raw.assumingMemoryBound(to: ProtobufCMessageDescriptor.self), arena: arena)
    }

    /// Stores the values of one field: exactly one for a singular field, any number for a
    /// repeated one (a `size_t n_<field>` count and an array, as protobuf-c lays them out).
    func set(_ values: [FieldValue], for field: UnsafePointer<ProtobufCFieldDescriptor>) {
        let type = field.pointee.type
        let address = storage + Int(field.pointee.offset)
        switch field.pointee.label {
        case PROTOBUF_C_LABEL_REPEATED:
            let size = FieldValue.size(of: type)
            let array = arena.allocate(byteCount: size * values.count)
            for (index, value) in values.enumerated() {
                value.store(at: array + index * size, type: type, arena: arena)
            }
            (storage + Int(field.pointee.quantifier_offset)).storeBytes(of: values.count, as: Int.self)
            address.storeBytes(of: values.isEmpty ? nil : UnsafeRawPointer(array), as: UnsafeRawPointer?.self)
        case PROTOBUF_C_LABEL_NONE:
            precondition(values.count == 1, "field \(String(cString: field.pointee.name)) is singular")
            values[0].store(at: address, type: type, arena: arena)
        default:
            preconditionFailure("proto2 labels are not used in proto/")
        }
    }

    /// Serialises the message with protobuf-c.
    func pack() -> [UInt8] {
        let message = UnsafePointer(storage.assumingMemoryBound(to: ProtobufCMessage.self))
        let size = protobuf_c_message_get_packed_size(message)
        // An empty message packs to nothing; the initializer below would write the count of
        // the shared empty-array storage from every thread doing so (TSan saw it).
        guard size > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = protobuf_c_message_pack(message, buffer.baseAddress)
        }
    }
}
