import CProtobufC

/// A pointer to one of protoc-c's message descriptors: static, immutable C data that lives as
/// long as the process, so sharing it between threads is safe.
package struct MessageDescriptorRef: @unchecked Sendable {
    @usableFromInline package let pointer: UnsafePointer<ProtobufCMessageDescriptor>

    /// The full proto name, e.g. `"water.v1.LogWaterRequest"`.
    var fullName: String { String(cString: pointer.pointee.name) }
}

/// The message descriptors of one generated set (the API's, the storage format's), by full
/// proto name. Each set's `GeneratedMessages`/`ArchiveMessages` holds one.
package struct DescriptorRegistry: Sendable {
    package let messages: [String: MessageDescriptorRef]

    /// Reads the `count` descriptors a generated C registry lists.
    package init(count: Int, descriptor: (Int) -> UnsafePointer<ProtobufCMessageDescriptor>) {
        var byName: [String: MessageDescriptorRef] = [:]
        for index in 0..<count {
            let found = MessageDescriptorRef(pointer: descriptor(index))
            byName[found.fullName] = found
        }
        messages = byName
    }

    /// The descriptor of the message named `name`. Traps when the set has no such message,
    /// which only a hand-written conformance could cause.
    package func descriptor(named name: String) -> MessageDescriptorRef {
        guard let found = messages[name] else {
            preconditionFailure("\(name) has no protobuf-c descriptor; run scripts/generate-proto")
        }
        return found
    }
}

extension MessageDescriptorRef {
    /// One field of a message as protoc-c describes it: what tests and tools walk the schema
    /// by, without protobuf-c's C constants (which Swift finds only through the C module that
    /// happened to load protobuf-c's header first).
    package struct Field {
        package let name: String
        package let number: UInt32
        package let isString: Bool
        package let isRepeated: Bool
        /// The field's message type, for a field that holds a message.
        package let message: MessageDescriptorRef?
    }

    /// The message's fields, in protoc-c's order (by number).
    package var fields: [Field] {
        (0..<Int(pointer.pointee.n_fields)).map { index in
            let field = pointer.pointee.fields[index]
            return Field(
                name: String(cString: field.name), number: field.id, isString: field.type == PROTOBUF_C_TYPE_STRING,
                isRepeated: field.label == PROTOBUF_C_LABEL_REPEATED,
                message: field.type == PROTOBUF_C_TYPE_MESSAGE
                    ? MessageDescriptorRef(
                        pointer: field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self))
                    : nil)
        }
    }
}
