import WaterCodec
import WaterProtocol

/// Makes an instance of any generated message with every field set to a distinct non-default
/// value (every submessage present, every repeated field with two elements), so a round trip
/// exercises every field of every type without a hand-written sample per type.
enum SampleValues {
    static func make<Message: ProtoMessage>(_ type: Message.Type) -> Message {
        do {
            return try Message(from: SampleDecoder(counter: Counter()))
        } catch {
            preconditionFailure("the sample decoder never throws: \(error)")
        }
    }
}

private final class Counter {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

private struct SampleDecoder: Decoder {
    let counter: Counter
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(counter: counter))
    }

    func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(counter: counter) }
    func singleValueContainer() -> any SingleValueDecodingContainer { Single(counter: counter) }
}

/// The value of every primitive type for the counter's next step: signed numbers negative and
/// past 32 bits where the type allows, strings with non-ASCII text, bytes with a zero byte.
private func sample<T>(_ type: T.Type, _ counter: Counter) -> T {
    let n = counter.next()
    let value: Any =
        switch type {
        case is Bool.Type: true
        case is String.Type: "sample \(n) – Wasser 💧"
        case is Double.Type: Double(n) + 0.25
        case is Float.Type: Float(n) + 0.5
        case is Int32.Type: Int32(n % 2 == 0 ? n : -n)
        case is Int64.Type: Int64(n) << 33
        case is UInt32.Type: UInt32(n) + 3_000_000_000
        case is UInt64.Type: UInt64(n) << 40
        case is [UInt8].Type: [0, UInt8(n & 0xFF), 0xFF]
        default: preconditionFailure("no sample for \(T.self)")
        }
    return value as! T
}

private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let counter: Counter
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) -> Bool { false }
    func decode(_ type: Bool.Type, forKey key: Key) -> Bool { sample(type, counter) }
    func decode(_ type: String.Type, forKey key: Key) -> String { sample(type, counter) }
    func decode(_ type: Double.Type, forKey key: Key) -> Double { sample(type, counter) }
    func decode(_ type: Float.Type, forKey key: Key) -> Float { sample(type, counter) }
    func decode(_ type: Int32.Type, forKey key: Key) -> Int32 { sample(type, counter) }
    func decode(_ type: Int64.Type, forKey key: Key) -> Int64 { sample(type, counter) }
    func decode(_ type: UInt32.Type, forKey key: Key) -> UInt32 { sample(type, counter) }
    func decode(_ type: UInt64.Type, forKey key: Key) -> UInt64 { sample(type, counter) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if T.self == [UInt8].self { return sample(type, counter) }
        return try T(from: SampleDecoder(counter: counter))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
        -> KeyedDecodingContainer<NestedKey>
    { KeyedDecodingContainer(Keyed<NestedKey>(counter: counter)) }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer { Unkeyed(counter: counter) }
    func superDecoder() -> any Decoder { SampleDecoder(counter: counter) }
    func superDecoder(forKey key: Key) -> any Decoder { SampleDecoder(counter: counter) }
}

private struct Unkeyed: UnkeyedDecodingContainer {
    let counter: Counter
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 2 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 2 }

    init(counter: Counter) {
        self.counter = counter
    }

    mutating func decodeNil() -> Bool { false }
    mutating func decode(_ type: Bool.Type) -> Bool { advance(sample(type, counter)) }
    mutating func decode(_ type: String.Type) -> String { advance(sample(type, counter)) }
    mutating func decode(_ type: Double.Type) -> Double { advance(sample(type, counter)) }
    mutating func decode(_ type: Float.Type) -> Float { advance(sample(type, counter)) }
    mutating func decode(_ type: Int32.Type) -> Int32 { advance(sample(type, counter)) }
    mutating func decode(_ type: Int64.Type) -> Int64 { advance(sample(type, counter)) }
    mutating func decode(_ type: UInt32.Type) -> UInt32 { advance(sample(type, counter)) }
    mutating func decode(_ type: UInt64.Type) -> UInt64 { advance(sample(type, counter)) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == [UInt8].self { return advance(sample(type, counter)) }
        return advance(try T(from: SampleDecoder(counter: counter)))
    }

    private mutating func advance<T>(_ value: T) -> T {
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type)
        -> KeyedDecodingContainer<NestedKey>
    { KeyedDecodingContainer(Keyed<NestedKey>(counter: counter)) }
    mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(counter: counter) }
    mutating func superDecoder() -> any Decoder { SampleDecoder(counter: counter) }
}

/// Enums: alternately a known value and one no version knows yet, which must survive too.
private struct Single: SingleValueDecodingContainer {
    let counter: Counter
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) -> Bool { sample(type, counter) }
    func decode(_ type: String.Type) -> String { sample(type, counter) }
    func decode(_ type: Double.Type) -> Double { sample(type, counter) }
    func decode(_ type: Float.Type) -> Float { sample(type, counter) }
    func decode(_ type: Int32.Type) -> Int32 { counter.next() % 2 == 0 ? 1 : 99 }
    func decode(_ type: Int64.Type) -> Int64 { sample(type, counter) }
    func decode(_ type: UInt32.Type) -> UInt32 { sample(type, counter) }
    func decode(_ type: UInt64.Type) -> UInt64 { sample(type, counter) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: SampleDecoder(counter: counter)) }
}
