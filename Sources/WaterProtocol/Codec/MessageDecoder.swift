import CProtobufC

/// Reads the fields of an unpacked protobuf-c message struct; a nil `storage` stands for an
/// absent submessage, whose every field reads as its proto3 default.
struct MessageReader {
    let descriptor: UnsafePointer<ProtobufCMessageDescriptor>
    let storage: UnsafeRawPointer?

    func field(for key: some CodingKey) -> UnsafePointer<ProtobufCFieldDescriptor>? {
        if let index = key.intValue, index >= 0, index < Int(descriptor.pointee.n_fields) {
            return descriptor.pointee.fields + index  // generated keys carry the field's index
        }
        return protobuf_c_message_descriptor_get_field_by_name(descriptor, key.stringValue)
    }

    /// How many elements a repeated field holds.
    func count(of field: UnsafePointer<ProtobufCFieldDescriptor>) -> Int {
        guard let storage, field.pointee.label == PROTOBUF_C_LABEL_REPEATED else { return 0 }
        return (storage + Int(field.pointee.quantifier_offset)).loadUnaligned(as: Int.self)
    }

    /// The value of a singular field, or element `index` of a repeated one.
    func value(of field: UnsafePointer<ProtobufCFieldDescriptor>, at index: Int? = nil) -> FieldValue {
        guard let storage else { return FieldValue.load(from: nil, type: field.pointee.type) }
        let address = storage + Int(field.pointee.offset)
        guard let index else { return FieldValue.load(from: address, type: field.pointee.type) }
        let array = address.loadUnaligned(as: UnsafeRawPointer?.self)
        return FieldValue.load(from: array.map { $0 + index * FieldValue.size(of: field.pointee.type) },
                               type: field.pointee.type)
    }

    /// A repeated field of plain numbers as a Swift array in one copy, or nil when `T` is not
    /// the array type of the field's C type. The columns of a snapshot hold hundreds of
    /// thousands of numbers; going through Codable one element at a time would dominate loading.
    func numberArray<T>(of field: UnsafePointer<ProtobufCFieldDescriptor>, as type: T.Type) -> T? {
        guard field.pointee.label == PROTOBUF_C_LABEL_REPEATED else { return nil }
        let count = count(of: field)
        let base = storage.flatMap { ($0 + Int(field.pointee.offset)).loadUnaligned(as: UnsafeRawPointer?.self) }
        func copy<Element>(_ element: Element.Type) -> T? {
            Array(UnsafeBufferPointer(start: base?.assumingMemoryBound(to: Element.self), count: base == nil ? 0 : count)) as? T
        }
        switch (field.pointee.type, T.self) {
        case (PROTOBUF_C_TYPE_INT32, is [Int32].Type), (PROTOBUF_C_TYPE_SINT32, is [Int32].Type),
            (PROTOBUF_C_TYPE_SFIXED32, is [Int32].Type):
            return copy(Int32.self)
        case (PROTOBUF_C_TYPE_INT64, is [Int64].Type), (PROTOBUF_C_TYPE_SINT64, is [Int64].Type),
            (PROTOBUF_C_TYPE_SFIXED64, is [Int64].Type):
            return copy(Int64.self)
        case (PROTOBUF_C_TYPE_UINT32, is [UInt32].Type), (PROTOBUF_C_TYPE_FIXED32, is [UInt32].Type):
            return copy(UInt32.self)
        case (PROTOBUF_C_TYPE_UINT64, is [UInt64].Type), (PROTOBUF_C_TYPE_FIXED64, is [UInt64].Type):
            return copy(UInt64.self)
        case (PROTOBUF_C_TYPE_DOUBLE, is [Double].Type):
            return copy(Double.self)
        default:
            return nil
        }
    }

    /// A reader for the submessage in `field` (element `index` when repeated).
    func child(of field: UnsafePointer<ProtobufCFieldDescriptor>, at index: Int? = nil) -> MessageReader {
        guard let raw = field.pointee.descriptor, case .message(let pointer) = value(of: field, at: index) else {
            preconditionFailure("field \(String(cString: field.pointee.name)) is not a message")
        }
        return MessageReader(descriptor: raw.assumingMemoryBound(to: ProtobufCMessageDescriptor.self),
                             storage: pointer)
    }
}

/// Decodes a generated message type from an unpacked protobuf-c struct.
struct MessageDecoder: Decoder {
    let reader: MessageReader
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(MessageDecodingContainer<Key>(reader: reader, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        preconditionFailure("a message decodes from a keyed container")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        preconditionFailure("a message decodes from a keyed container")
    }
}

/// Converts a ``FieldValue`` to the Swift type a generated property asks for.
private func convert<T>(_ value: FieldValue, to type: T.Type, codingPath: [any CodingKey]) throws -> T {
    let converted: Any? =
        switch (value, type) {
        case (.bool(let v), is Bool.Type): v
        case (.string(let v), is String.Type): v
        case (.double(let v), is Double.Type): v
        case (.float(let v), is Float.Type): v
        case (.signed(let v), is Int32.Type): Int32(exactly: v)
        case (.signed(let v), is Int64.Type): v
        case (.unsigned(let v), is UInt32.Type): UInt32(exactly: v)
        case (.unsigned(let v), is UInt64.Type): v
        case (.bytes(let v), is [UInt8].Type): v
        default: nil
        }
    guard let result = converted as? T else {
        preconditionFailure("\(codingPath.map(\.stringValue)): \(value) does not fit \(T.self)")
    }
    return result
}

/// The fields of one message.
struct MessageDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: MessageReader
    var codingPath: [any CodingKey]
    var allKeys: [Key] { [] }  // generated types ask for their keys; none is discovered

    func contains(_ key: Key) -> Bool {
        guard let field = reader.field(for: key) else { return false }
        if field.pointee.type == PROTOBUF_C_TYPE_MESSAGE, field.pointee.label != PROTOBUF_C_LABEL_REPEATED,
            case .message(nil) = reader.value(of: field)
        {
            return false  // an absent submessage decodes as nil
        }
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let field = try requireField(key)
        if let numbers = reader.numberArray(of: field, as: T.self) { return numbers }
        if T.self == [UInt8].self {
            return try convert(reader.value(of: field), to: T.self, codingPath: codingPath + [key])
        }
        return try T(from: FieldDecoder(reader: reader, field: field, index: nil, codingPath: codingPath + [key]))
    }

    private func scalar<T>(_ key: Key) throws -> T {
        try convert(reader.value(of: try requireField(key)), to: T.self, codingPath: codingPath + [key])
    }

    private func requireField(_ key: Key) throws -> UnsafePointer<ProtobufCFieldDescriptor> {
        guard let field = reader.field(for: key) else {
            preconditionFailure("\(String(cString: reader.descriptor.pointee.name)) has no field \(key.stringValue)")
        }
        return field
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        preconditionFailure("generated types do not nest containers")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        preconditionFailure("generated types do not nest containers")
    }

    func superDecoder() throws -> any Decoder { preconditionFailure("generated types have no superclass") }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        preconditionFailure("generated types have no superclass")
    }
}

/// Decodes the value of one field that is not a plain scalar: an enum, a submessage, or a
/// repeated field. With `index` set it stands for one element of a repeated field.
struct FieldDecoder: Decoder {
    let reader: MessageReader
    let field: UnsafePointer<ProtobufCFieldDescriptor>
    let index: Int?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            MessageDecodingContainer<Key>(reader: reader.child(of: field, at: index), codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RepeatedFieldDecodingContainer(decoder: self, count: reader.count(of: field))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ScalarDecodingContainer(value: reader.value(of: field, at: index), codingPath: codingPath)
    }
}

/// The elements of a repeated field.
private struct RepeatedFieldDecodingContainer: UnkeyedDecodingContainer {
    let decoder: FieldDecoder
    let count: Int?
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    init(decoder: FieldDecoder, count: Int) {
        self.decoder = decoder
        self.count = count
    }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next() }
    mutating func decode(_ type: String.Type) throws -> String { try next() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next() }
    mutating func decode(_ type: Float.Type) throws -> Float { try next() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == [UInt8].self { return try next() }
        defer { currentIndex += 1 }
        return try T(from: FieldDecoder(reader: decoder.reader, field: decoder.field, index: currentIndex,
                                        codingPath: codingPath))
    }

    private mutating func next<T>() throws -> T {
        defer { currentIndex += 1 }
        return try convert(decoder.reader.value(of: decoder.field, at: currentIndex), to: T.self,
                           codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        preconditionFailure("generated types do not nest containers")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        preconditionFailure("proto has no nested repeated fields")
    }

    mutating func superDecoder() throws -> any Decoder { preconditionFailure("generated types have no superclass") }
}

/// An enum's raw value.
private struct ScalarDecodingContainer: SingleValueDecodingContainer {
    let value: FieldValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: String.Type) throws -> String { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try convert(value, to: type, codingPath: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try convert(value, to: type, codingPath: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try convert(value, to: type, codingPath: codingPath) }
}
