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
