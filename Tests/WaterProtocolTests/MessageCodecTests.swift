import Testing
import WaterStore

@testable import WaterCodec
@testable import WaterProtocol

/// One set of generated messages: the API's (in WaterProtocol) or the storage format's (in
/// WaterStore, which the client never links). The same generator and runtime make both.
struct GeneratedSet: Sendable {
    let folder: String
    let descriptors: DescriptorRegistry
    let types: [String: any ProtoMessage.Type]

    static let all = [
        GeneratedSet(folder: "proto", descriptors: GeneratedMessages.descriptors, types: GeneratedMessages.byProtoName),
        GeneratedSet(
            folder: "proto/storage", descriptors: ArchiveMessages.descriptors, types: ArchiveMessages.byProtoName),
    ]

    /// The set that holds message `name`.
    static func of(_ name: String) -> GeneratedSet {
        all.first { $0.types[name] != nil }!
    }
}

/// Every generated message type's full proto name, of both sets, sorted.
let allMessageNames = GeneratedSet.all.flatMap(\.types.keys).sorted()

@Suite("Message codec")
struct MessageCodecTests {
    @Test("every protobuf-c descriptor has a generated Swift type, and the other way round, in each set")
    func everyMessageHasASwiftType() {
        for set in GeneratedSet.all {
            #expect(Set(set.descriptors.messages.keys) == Set(set.types.keys), "\(set.folder)")
        }
        #expect(GeneratedMessages.byProtoName.count > 70)
        #expect(ArchiveMessages.byProtoName.count > 10)
    }

    @Test("the API set holds no storage message: the client does not ship the disk format")
    func apiHasNoStorageFormat() {
        #expect(!GeneratedMessages.byProtoName.keys.contains { $0.hasPrefix("water.archive.") })
        #expect(ArchiveMessages.byProtoName.keys.allSatisfy { $0.hasPrefix("water.archive.") })
    }

    @Test("round-trips every message type with every field set", arguments: allMessageNames)
    func roundTrip(name: String) throws {
        try roundTrip(GeneratedSet.of(name).types[name]!)
    }

    private func roundTrip<Message: ProtoMessage>(_ type: Message.Type) throws {
        let original = SampleValues.make(Message.self)
        let bytes = original.serializedBytes()
        let hasFields = original != (try Message(serializedBytes: []))
        #expect(bytes.isEmpty == !hasFields)
        #expect(try Message(serializedBytes: bytes) == original)
    }

    @Test("encodes the documented bytes for a LogWaterRequest")
    func knownBytes() throws {
        let request = WaterV1.LogWaterRequest(entryID: "x", amountMl: 250)
        // field 1 (entry_id), length 1, "x"; field 2 (amount_ml), varint 250.
        #expect(request.serializedBytes() == [0x0A, 0x01, 0x78, 0x10, 0xFA, 0x01])
    }

    @Test("encodes default values as nothing, as proto3 does")
    func defaultsAreEmpty() {
        #expect(WaterV1.LogWaterRequest().serializedBytes() == [])
        #expect(WaterV1.GetTodayResponse(day: nil).serializedBytes() == [])
    }

    @Test("decodes an empty payload as every field at its default")
    func emptyDecodesToDefaults() throws {
        #expect(try WaterV1.GetTodayResponse(serializedBytes: []) == WaterV1.GetTodayResponse())
        #expect(try WaterV1.DaySummary(serializedBytes: []) == WaterV1.DaySummary())
    }

    @Test("skips fields it does not know, so older code reads newer messages")
    func unknownFieldsAreSkipped() throws {
        let bytes = WaterV1.LogWaterRequest(entryID: "x", amountMl: 250).serializedBytes()
        // field 15 as a varint, field 16 as length-delimited: neither exists in version 1.
        let newer = bytes + [0x78, 0x01, 0x82, 0x01, 0x02, 0x68, 0x69]
        #expect(
            try WaterV1.LogWaterRequest(serializedBytes: newer) == WaterV1.LogWaterRequest(entryID: "x", amountMl: 250))
    }

    @Test("keeps enum values it does not know")
    func unknownEnumValue() throws {
        let request = WaterV1.AddHabitRequest(habitID: "h", name: "read", icon: WaterV1.HabitIcon(rawValue: 42))
        let decoded = try WaterV1.AddHabitRequest(serializedBytes: request.serializedBytes())
        #expect(decoded.icon.rawValue == 42)
        #expect(!decoded.icon.isKnown)
        #expect(WaterV1.HabitIcon.book.protoName == "HABIT_ICON_BOOK")
    }

    @Test("refuses text that is not UTF-8 instead of repairing it (see StrictStringsTests for every field)")
    func invalidUTF8() throws {
        let error = try #require(throws: DecodeError.self) {
            try WaterV1.LogWaterRequest(serializedBytes: [0x0A, 0x02, 0xFF, 0x41])
        }
        #expect(error.code == .malformed && error.field == "entry_id")
        #expect(WaterError(error).code == .invalidArgument && WaterError(error).violations.map(\.field) == ["entry_id"])
    }

    @Test(
        "rejects garbage with INVALID_ARGUMENT",
        arguments: [
            [0xFF, 0xFF, 0xFF],  // a key with no end
            [0x0A, 0x05, 0x61],  // a string longer than the message
            [0x10],  // a varint field with no value
            [0x12, 0x01, 0x00],  // amount_ml (a varint) sent as bytes
            [0x0B],  // a group start, which proto3 does not have
        ] as [[UInt8]])
    func garbage(bytes: [UInt8]) {
        #expect {
            try WaterV1.LogWaterRequest(serializedBytes: bytes)
        } throws: { error in
            (error as? DecodeError).map { WaterError($0).code } == .invalidArgument
        }
    }

    @Test("rejects a message cut short")
    func truncatedMessage() {
        let bytes = WaterV1.LogWaterRequest(entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250)
            .serializedBytes()
        // Every prefix ends inside a field, except the one that drops amount_ml (3 bytes) whole.
        for length in 1..<bytes.count where length != bytes.count - 3 {
            #expect(throws: DecodeError.self) { try WaterV1.LogWaterRequest(serializedBytes: bytes.prefix(length)) }
        }
    }
}

@Suite("Generated coding keys")
struct CodingKeyIndexTests {
    @Test("name each field by its index in protoc-c's descriptor", arguments: allMessageNames)
    func indexesMatchNames(name: String) throws {
        let set = GeneratedSet.of(name)
        let descriptor = try #require(set.descriptors.messages[name]).pointer.pointee
        for index in 0..<Int(descriptor.n_fields) {
            let fieldName = String(cString: descriptor.fields[index].name)
            #expect(keyName(set.types[name]!, index: index) == fieldName, "\(name) field \(index)")
        }
    }

    private func keyName<Message: ProtoMessage>(_ type: Message.Type, index: Int) -> String? {
        // The generator gives each key the index its WireMessage code stores the field at; a
        // wrong index would put a value in the wrong field, which the round trips and the
        // protoc cross-check catch. Here, check the names directly.
        IndexProbe.names(of: Message.self)[index]
    }
}

/// Collects the coding keys a generated type encodes, by their int value.
private enum IndexProbe {
    static func names<Message: ProtoMessage>(of type: Message.Type) -> [Int: String] {
        let recorder = KeyRecorder()
        try? SampleValues.make(Message.self).encode(to: recorder)
        return recorder.names
    }
}

private final class KeyRecorder: Encoder {
    var names: [Int: String] = [:]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Container<Key>(recorder: self))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("messages are keyed") }
    func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("messages are keyed") }

    struct Container<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let recorder: KeyRecorder
        var codingPath: [any CodingKey] { [] }
        private func note(_ key: Key) { if let index = key.intValue { recorder.names[index] = key.stringValue } }
        mutating func encodeNil(forKey key: Key) throws { note(key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { note(key) }
        mutating func nestedContainer<N: CodingKey>(keyedBy keyType: N.Type, forKey key: Key) -> KeyedEncodingContainer<
            N
        > {
            fatalError("not used")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { fatalError("not used") }
        mutating func superEncoder() -> any Encoder { fatalError("not used") }
        mutating func superEncoder(forKey key: Key) -> any Encoder { fatalError("not used") }
    }
}
