import Testing

@testable import WaterCodec
@testable import WaterProtocol

/// Decodes `bytes` as `Message` under `limits`, through an arena as the server does; a refusal
/// as the peer is told of it.
private func decode<Message: WireMessage>(_ type: Message.Type, _ bytes: [UInt8], _ limits: DecodeLimits)
    throws(WaterError) -> Message
{
    do {
        return try withBytes(of: bytes) { (bytes) throws(DecodeError) in
            try WireCodec.unpack(type, from: bytes, arena: WireArena(), limits: limits)
        }
    } catch {
        throw WaterError(error)
    }
}

/// Limits small enough to reach in a test.
private let small = DecodeLimits(maximumFieldCount: 10, maximumDepth: 3, maximumSingularOccurrences: 2)

/// A `LogWaterRequest`'s `entry_id` (field 1), `count` times.
private func entryIDs(_ count: Int) -> [UInt8] {
    Array([[UInt8]](repeating: lengthDelimited(1, Array("e".utf8)), count: count).joined())
}

@Suite("Decode limits")
struct WireCheckTests {
    @Test(
        "a message with more fields than the limit is RESOURCE_EXHAUSTED, unknown fields counted; at the limit passes")
    func fieldCount() throws {
        // amount_ml 250, then unknown field 15 as varints: 10 fields in all.
        let atLimit = varintField(2, 250) + Array([[UInt8]](repeating: varintField(15, 1), count: 9).joined())
        #expect(try decode(WaterV1.LogWaterRequest.self, atLimit, small).amountMl == 250)
        let error = try #require(throws: WaterError.self) {
            try decode(WaterV1.LogWaterRequest.self, atLimit + varintField(15, 1), small)
        }
        #expect(error.code == .resourceExhausted)
        #expect(error.message.contains("at most 10 fields"))
    }

    @Test("nested messages' fields count toward the whole message's limit")
    func nestedFieldsCount() throws {
        // LogWaterResponse.entry (1 field) with 9 fields inside: 10; a 10th inside: 11.
        let entry = Array([[UInt8]](repeating: varintField(2, 5), count: 2).joined()) + varintField(3, 7)
        let fields = { (inner: Int) in
            lengthDelimited(1, Array([[UInt8]](repeating: varintField(15, 1), count: inner).joined()) + entry)
        }
        #expect(try decode(WaterV1.LogWaterResponse.self, fields(6), small).entry?.atUnixMs == 7)
        #expect(throws: WaterError.self) { try decode(WaterV1.LogWaterResponse.self, fields(7), small) }
    }

    @Test("a singular field repeated more often than allowed is refused, naming it; as often as allowed passes")
    func repeatedSingularField() throws {
        #expect(try decode(WaterV1.LogWaterRequest.self, entryIDs(2), small).entryID == "e")
        let error = try #require(throws: WaterError.self) {
            try decode(WaterV1.LogWaterRequest.self, entryIDs(3), small)
        }
        #expect(error.code == .invalidArgument)
        #expect(error.violations.map(\.field) == ["entry_id"])
    }

    @Test("a repeated singular submessage is refused by its path; a repeated field is not limited so")
    func repeatedSingularSubmessage() throws {
        // ImportRequest.history.settings, three times.
        let settings = lengthDelimited(2, varintField(1, 2000))
        let history = lengthDelimited(1, settings + settings + settings)
        let error = try #require(throws: WaterError.self) { try decode(WaterV1.ImportRequest.self, history, small) }
        #expect(error.violations.map(\.field) == ["history.settings"])
        // history.entries is repeated: three of them are three entries.
        let entries = lengthDelimited(1, Array([[UInt8]](repeating: lengthDelimited(3, []), count: 3).joined()))
        #expect(try decode(WaterV1.ImportRequest.self, entries, small).history?.entries.count == 3)
    }

    @Test("messages nested deeper than the limit are refused, naming the field; as deep as allowed passes")
    func depth() throws {
        // ImportRequest (1) > history: MemberHistory (2) > habits: HabitHistory (3) > habit: Habit (4).
        let habit = lengthDelimited(1, lengthDelimited(5, lengthDelimited(1, lengthDelimited(2, Array("read".utf8)))))
        let deep = DecodeLimits(maximumFieldCount: 10, maximumDepth: 4, maximumSingularOccurrences: 2)
        #expect(try decode(WaterV1.ImportRequest.self, habit, deep).history?.habits.first?.habit?.name == "read")
        let error = try #require(throws: WaterError.self) { try decode(WaterV1.ImportRequest.self, habit, small) }
        #expect(error.code == .invalidArgument)
        #expect(error.violations.map(\.field) == ["history.habits.habit"])
    }

    @Test("every request of the API fits the limits of a member's calls, and login fits those before login")
    func limitsFitTheAPI() throws {
        #expect(maximumDepth(of: WaterV1.ImportRequest.wireDescriptor) <= DecodeLimits.request.maximumDepth)
        for method in MethodTable.shared.methods {
            let request = try #require(GeneratedSet.of(method.requestType).descriptors.messages[method.requestType])
            #expect(maximumDepth(of: request) <= DecodeLimits.request.maximumDepth, "\(method)")
        }
        let login = WaterV1.LoginRequest(username: "mum", password: String(repeating: "p", count: 200))
        #expect(try decode(WaterV1.LoginRequest.self, login.serializedBytes(), .beforeLogin) == login)
        let handshake = WaterV1.HandshakeRequest(protocolVersion: 1, clientName: "water-client 1.1.0")
        #expect(try decode(WaterV1.HandshakeRequest.self, handshake.serializedBytes(), .beforeLogin) == handshake)
    }

    @Test("a frame of 4 KiB of repeated or unknown fields before login is refused at once")
    func issue18_floodBeforeLogin() throws {
        let flood = Array([[UInt8]](repeating: varintField(15, 1), count: 2048).joined())
        let error = try #require(throws: WaterError.self) { try decode(WaterV1.LoginRequest.self, flood, .beforeLogin) }
        #expect(error.code == .resourceExhausted)
        let repeated = Array([[UInt8]](repeating: lengthDelimited(1, Array("mum".utf8)), count: 512).joined())
        #expect(throws: WaterError.self) { try decode(WaterV1.LoginRequest.self, repeated, .beforeLogin) }
    }

    /// How deep messages nest inside `message`, itself counting 1 (the schema has no cycle).
    private func maximumDepth(of message: MessageDescriptorRef) -> Int {
        1 + (message.fields.compactMap { $0.message.map(maximumDepth(of:)) }.max() ?? 0)
    }
}

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    @Test("agrees with the standard library on every one- and two-byte sequence and on random text")
    func agreesWithTheStandardLibrary() {
        func check(_ bytes: [UInt8]) {
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(bytes.withUnsafeBytes { UTF8Validation.isValid($0) } == expected, "\(bytes)")
        }
        for first in 0...255 {
            check([UInt8(first)])
            for second in 0...255 { check([UInt8(first), UInt8(second)]) }
        }
        var random = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("é".utf8), Array("水".utf8), Array("💧".utf8), [0xE0, 0xA0], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xC0, 0x80], [0x80], Array("plain ascii text".utf8),
        ]
        for _ in 0..<20_000 {
            check((0..<Int.random(in: 1...8, using: &random)).flatMap { _ in pieces.randomElement(using: &random)! })
        }
    }
}
