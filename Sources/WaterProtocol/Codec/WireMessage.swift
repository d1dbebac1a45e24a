import CProtobufC

/// A generated message that stores its own fields into a protobuf-c struct, field by field and
/// by index, with concrete types: no Codable containers, no dynamic casts, no generic metadata
/// looked up at run time on the way to the wire. `scripts/generate-proto` writes every
/// conformance; the JSON of `--json` still goes through Codable.
package protocol WireMessage: ProtoMessage {
    /// protoc-c's descriptor of this message, looked up once.
    static var wireDescriptor: MessageDescriptorRef { get }
    /// Stores every field into `builder`, whose struct was made from ``wireDescriptor``.
    func encodeFields(into builder: MessageBuilder)
    /// Reads every field of an unpacked struct of this message.
    init(wire reader: MessageReader)
}

extension WireMessage {
    /// Fills `builder` (a submessage's struct) and returns the struct, for the parent's field.
    package func built(in builder: MessageBuilder) -> UnsafeRawPointer {
        encodeFields(into: builder)
        return UnsafeRawPointer(builder.storage)
    }
}

/// Packing a ``WireMessage`` with protobuf-c.
package enum WireCodec {
    package static func pack<Message: WireMessage>(_ message: Message) -> [UInt8] {
        let arena = CArena()
        defer { arena.releaseAll() }
        let builder = MessageBuilder(descriptor: Message.wireDescriptor.pointer, arena: arena)
        message.encodeFields(into: builder)
        return builder.pack()
    }

    /// Unpacks `bytes` with protobuf-c and reads the message out of the C struct, which is
    /// freed before returning. Unknown fields are skipped, as proto3 requires, so older peers
    /// read newer messages.
    /// - Throws: INVALID_ARGUMENT when the bytes are not a valid encoding of the message, or a
    ///   string field holds U+0000 or is not UTF-8 (``StrictStrings``, naming the field).
    package static func unpack<Message: WireMessage>(_ type: Message.Type, from bytes: some Collection<UInt8>)
        throws(WaterError) -> Message
    {
        let descriptor = Message.wireDescriptor.pointer
        let unpack = { (buffer: UnsafeBufferPointer<UInt8>) in
            Result { () throws(WaterError) in
                try StrictStrings.check(UnsafeRawBufferPointer(buffer), descriptor)
                // - NULL: the bytes are not a valid encoding (or memory ran out).
                return protobuf_c_message_unpack(descriptor, nil, buffer.count, buffer.baseAddress)
            }
        }
        let unpacked =
            try (bytes.withContiguousStorageIfAvailable(unpack) ?? Array(bytes).withUnsafeBufferPointer(unpack)).get()
        guard let unpacked else {
            throw WaterError(.invalidArgument, "malformed \(Message.protoName): not a valid protobuf encoding")
        }
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        return Message(wire: MessageReader(descriptor: descriptor, storage: UnsafeRawPointer(unpacked)))
    }
}
