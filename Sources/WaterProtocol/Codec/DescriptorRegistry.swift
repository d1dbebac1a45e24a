import CProtobufC
import CWaterProto

/// A pointer to one of protoc-c's message descriptors: static, immutable C data that lives as
/// long as the process, so sharing it between threads is safe.
struct MessageDescriptorRef: @unchecked Sendable {
    let pointer: UnsafePointer<ProtobufCMessageDescriptor>

    /// The full proto name, e.g. `"water.v1.LogWaterRequest"`.
    var fullName: String { String(cString: pointer.pointee.name) }
}

/// Every message descriptor that `scripts/generate-proto` registered, by full proto name.
enum DescriptorRegistry {
    static let messages: [String: MessageDescriptorRef] = {
        var byName: [String: MessageDescriptorRef] = [:]
        for index in 0..<water_registry_message_count() {
            let descriptor = MessageDescriptorRef(pointer: water_registry_message(index))
            byName[descriptor.fullName] = descriptor
        }
        return byName
    }()

    /// The descriptor of the message named `name`. Traps when proto/ has no such message,
    /// which only a hand-written conformance could cause.
    static func descriptor(named name: String) -> MessageDescriptorRef {
        guard let descriptor = messages[name] else {
            preconditionFailure("\(name) has no protobuf-c descriptor; run scripts/generate-proto")
        }
        return descriptor
    }
}
