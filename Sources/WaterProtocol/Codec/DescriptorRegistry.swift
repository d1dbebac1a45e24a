import CProtobufC

/// A pointer to one of protoc-c's message descriptors: static, immutable C data that lives as
/// long as the process, so sharing it between threads is safe.
package struct MessageDescriptorRef: @unchecked Sendable {
    let pointer: UnsafePointer<ProtobufCMessageDescriptor>

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
