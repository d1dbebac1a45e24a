import CProtobufC

/// A protobuf-c message struct being filled from Swift values, in a ``WireArena``: a value over
/// the struct's address, so a message and each of its submessages cost no heap object.
package struct MessageBuilder {
    @usableFromInline let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    /// The struct, laid out as protoc-c's `sizeof_message` says.
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let arena: WireArena

    /// Allocates the struct and runs protoc-c's `message_init`, which sets every default.
    @usableFromInline init(descriptor: UnsafePointer<ProtobufCMessageDescriptor>, arena: WireArena) {
        self.descriptor = descriptor
        self.arena = arena
        self.storage = arena.allocate(byteCount: descriptor.pointee.sizeof_message)
        descriptor.pointee.message_init(storage.assumingMemoryBound(to: ProtobufCMessage.self))
    }

    /// The finished struct, for protobuf-c's pack or a parent's field.
    @usableFromInline var message: UnsafePointer<ProtobufCMessage> {
        UnsafePointer(storage.assumingMemoryBound(to: ProtobufCMessage.self))
    }

    /// The descriptor of the field at `index` (protoc-c sorts a message's fields by number;
    /// the generated code knows each field's place).
    @usableFromInline func field(at index: Int) -> UnsafePointer<ProtobufCFieldDescriptor> {
        precondition(index >= 0 && index < Int(descriptor.pointee.n_fields), "field index \(index)")
        return descriptor.pointee.fields + index
    }

    /// Stores one singular field's value.
    package func set(_ value: FieldValue, at index: Int) {
        let field = singular(at: index)
        value.store(at: storage + Int(field.pointee.offset), type: field.pointee.type, arena: arena)
    }

    /// Stores a singular submessage, built in the same arena.
    @inlinable package func setMessage<Message: WireMessage>(_ message: Message, at index: Int) {
        let child = child(of: singular(at: index))
        message.encodeFields(into: child)
        set(.message(UnsafeRawPointer(child.storage)), at: index)
    }

    /// Stores a bytes field whose bytes are in the arena already (a payload packed there): no copy.
    package func setBorrowedBytes(_ bytes: UnsafeRawBufferPointer, at index: Int) {
        let field = singular(at: index)
        precondition(field.pointee.type == PROTOBUF_C_TYPE_BYTES, "field \(index) is not bytes")
        (storage + Int(field.pointee.offset)).storeBytes(
            of: ProtobufCBinaryData(
                len: bytes.count,
                data: bytes.isEmpty
                    ? nil : UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))),
            as: ProtobufCBinaryData.self)
    }

    /// The singular field at `index`.
    @usableFromInline func singular(at index: Int) -> UnsafePointer<ProtobufCFieldDescriptor> {
        let field = field(at: index)
        precondition(field.pointee.label == PROTOBUF_C_LABEL_NONE, "field \(index) is repeated")
        return field
    }

    /// A builder for a submessage of `field`, in the same arena.
    @usableFromInline func child(of field: UnsafePointer<ProtobufCFieldDescriptor>) -> MessageBuilder {
        guard let raw = field.pointee.descriptor else {
            preconditionFailure("field \(String(cString: field.pointee.name)) is not a message")
        }
        return MessageBuilder(descriptor: raw.assumingMemoryBound(to: ProtobufCMessageDescriptor.self), arena: arena)
    }
}
