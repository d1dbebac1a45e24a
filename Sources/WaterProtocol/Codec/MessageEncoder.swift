import CProtobufC

/// Encodes a generated message type into a protobuf-c struct held by a ``MessageBuilder``.
///
/// The Codable keys of generated types are proto field names, so each key finds its field
/// descriptor by name; the descriptor, not the Swift type, decides how the value is stored.
struct MessageEncoder: Encoder {
    let builder: MessageBuilder
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(MessageEncodingContainer<Key>(builder: builder, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("a message encodes as a keyed container")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        preconditionFailure("a message encodes as a keyed container")
    }
}

/// The fields of one message.
struct MessageEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let builder: MessageBuilder
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {}  // an absent submessage stays NULL
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.float(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.signed(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.signed(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.unsigned(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let field = builder.field(for: key)
        // Compare types, not a dynamic cast: an empty array of anything casts to [UInt8].
        if T.self == [UInt8].self, let bytes = value as? [UInt8] {
            builder.set([.bytes(bytes)], for: field)
            return
        }
        if builder.setNumberArray(value, for: field) { return }
        let encoder = FieldEncoder(builder: builder, field: field, codingPath: codingPath + [key])
        try value.encode(to: encoder)
        builder.set(encoder.values, for: field)
    }

    private func set(_ value: FieldValue, _ key: Key) {
        builder.set([value], for: builder.field(for: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        preconditionFailure("generated types do not nest containers")
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        preconditionFailure("generated types do not nest containers")
    }

    mutating func superEncoder() -> any Encoder { preconditionFailure("generated types have no superclass") }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        preconditionFailure("generated types have no superclass")
    }
}

/// Encodes the value of one field that is not a plain scalar: an enum (a single Int32), a
/// submessage (keyed), or a repeated field (unkeyed, whose elements come back here one by one).
final class FieldEncoder: Encoder {
    let builder: MessageBuilder
    let field: UnsafePointer<ProtobufCFieldDescriptor>
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What was encoded: one value for a singular field, each element for a repeated one.
    fileprivate(set) var values: [FieldValue] = []

    init(builder: MessageBuilder, field: UnsafePointer<ProtobufCFieldDescriptor>, codingPath: [any CodingKey]) {
        self.builder = builder
        self.field = field
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let child = builder.child(for: field)
        values.append(.message(UnsafeRawPointer(child.storage)))
        return KeyedEncodingContainer(MessageEncodingContainer<Key>(builder: child, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FieldValueContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FieldValueContainer(encoder: self)
    }

    fileprivate func append(_ value: FieldValue) {
        values.append(value)
    }
}

/// Collects a field's values: each element of a repeated field (as an unkeyed container), or
/// an enum's raw value (as a single-value container).
private struct FieldValueContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let encoder: FieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.values.count }

    mutating func encodeNil() throws { preconditionFailure("a proto field holds no nil") }
    mutating func encode(_ value: Bool) throws { encoder.append(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.append(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.append(.double(value)) }
    mutating func encode(_ value: Float) throws { encoder.append(.float(value)) }
    mutating func encode(_ value: Int32) throws { encoder.append(.signed(Int64(value))) }
    mutating func encode(_ value: Int64) throws { encoder.append(.signed(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.append(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.append(.unsigned(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if T.self == [UInt8].self, let bytes = value as? [UInt8] {
            encoder.append(.bytes(bytes))  // an element of a repeated bytes field
        } else {
            try value.encode(to: encoder)  // a message or an enum appends itself
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        preconditionFailure("generated types do not nest containers")
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        preconditionFailure("proto has no nested repeated fields")
    }

    mutating func superEncoder() -> any Encoder { preconditionFailure("generated types have no superclass") }
}
