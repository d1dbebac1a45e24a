/// A generated message that stores its own fields into a protobuf-c struct, field by field and
/// by index, with concrete types: no Codable containers, no dynamic casts, no generic metadata
/// looked up at run time on the way to the wire. `scripts/generate-proto` writes every
/// conformance; the JSON of `--json` still goes through Codable.
protocol WireMessage: ProtoMessage {
    /// protoc-c's descriptor of this message, looked up once.
    static var wireDescriptor: MessageDescriptorRef { get }
    /// Stores every field into `builder`, whose struct was made from ``wireDescriptor``.
    func encodeFields(into builder: MessageBuilder)
}

extension WireMessage {
    /// Fills `builder` (a submessage's struct) and returns the struct, for the parent's field.
    func built(in builder: MessageBuilder) -> UnsafeRawPointer {
        encodeFields(into: builder)
        return UnsafeRawPointer(builder.storage)
    }
}

/// Packing a ``WireMessage`` with protobuf-c.
enum WireCodec {
    static func pack<Message: WireMessage>(_ message: Message) -> [UInt8] {
        let arena = CArena()
        defer { arena.releaseAll() }
        let builder = MessageBuilder(descriptor: Message.wireDescriptor.pointer, arena: arena)
        message.encodeFields(into: builder)
        return builder.pack()
    }
}
