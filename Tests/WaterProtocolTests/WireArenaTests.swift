import Testing

@testable import WaterCodec
@testable import WaterProtocol

@Suite("WireArena")
struct WireArenaTests {
    @Test(
        "packs and unpacks every message type through an arena exactly as serializedBytes does",
        arguments: allMessageNames)
    func everyMessage(name: String) throws {
        let type = try #require(GeneratedSet.of(name).types[name] as? any WireMessage.Type)
        try roundTrip(type, in: WireArena())
    }

    private func roundTrip<Message: WireMessage>(_ type: Message.Type, in arena: WireArena) throws {
        let original = SampleValues.make(Message.self)
        let bytes = original.serializedBytes()
        var appended: [UInt8] = [0xEE]  // packing appends: what was there stays
        WireCodec.pack(original, appendingTo: &appended, arena: arena)
        #expect(appended == [0xEE] + bytes)
        let packed = WireCodec.packed(WireCodec.build(original, in: arena), in: arena)
        #expect(Array(packed) == bytes)
        let decoded = try withBytes(of: bytes) { (bytes) throws(DecodeError) in
            try WireCodec.unpack(Message.self, from: bytes, arena: arena, limits: .unlimited)
        }
        #expect(decoded == original)
        #expect(try Message(serializedBytes: bytes) == original)
    }

    @Test("used again for many messages, keeps every value right and stops growing after the first")
    func reusedArena() throws {
        // 256 bytes are too few for one message: the first grows the arena, its reset keeps
        // one block that holds it, and every message after fits in that.
        let arena = WireArena(initialBlockSize: 256)
        var capacityAfterFirst = 0
        for index in 0..<2000 {
            arena.reset()
            let reply = WaterV1.LogWaterResponse(
                entry: WaterV1.WaterEntry(
                    entryID: "0192e4a0-7b5c-7cc3-8a1e-\(index)", amountMl: Int32(index % 2000), atUnixMs: Int64(index),
                    date: "2025-11-30"),
                day: WaterV1.DaySummary(date: "2025-11-30", amountMl: Int32(index), goalMl: 2000, count: UInt32(index)))
            var bytes: [UInt8] = []
            WireCodec.pack(reply, appendingTo: &bytes, arena: arena)
            let decoded = try withBytes(of: bytes) { (bytes) throws(DecodeError) in
                try WireCodec.unpack(WaterV1.LogWaterResponse.self, from: bytes, arena: arena, limits: .request)
            }
            #expect(decoded == reply)
            if index == 1 { capacityAfterFirst = arena.capacity }
            if index >= 1 { #expect(arena.capacity == capacityAfterFirst, "message \(index)") }
        }
        // A LogWaterResponse's structs (an entry with its drink, a day with its raw total) take
        // more than 512 bytes and less than 1024.
        #expect(capacityAfterFirst == 1024)
    }

    @Test("after a message that outgrew its block, keeps one block that holds it, and no more")
    func coalescesAfterGrowth() {
        let arena = WireArena(initialBlockSize: 1024, maximumRetainedBytes: 64 * 1024)
        for _ in 0..<100 { _ = arena.allocate(byteCount: 100) }  // 11 KiB, in blocks of 1, 2, 4 and 8 KiB
        #expect(arena.capacity == 15 * 1024)
        arena.reset()
        #expect(arena.capacity == 16 * 1024)
        for _ in 0..<3 {
            for _ in 0..<100 { _ = arena.allocate(byteCount: 100) }
            arena.reset()
            #expect(arena.capacity == 16 * 1024)
        }
    }

    @Test("gives back, at reset, what is past the most it keeps")
    func releasesAfterAHugeMessage() {
        let arena = WireArena(initialBlockSize: 4096, maximumRetainedBytes: 64 * 1024)
        _ = arena.allocate(byteCount: 4 << 20)
        #expect(arena.capacity >= 4 << 20)
        arena.reset()
        #expect(arena.capacity == 64 * 1024)
    }

    @Test("hands out zeroed memory, also when it is used again")
    func zeroed() {
        let arena = WireArena(initialBlockSize: 256)
        let first = arena.allocate(byteCount: 200)
        first.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 200)
        arena.reset()
        let second = arena.allocate(byteCount: 200)
        #expect(second == first)
        #expect(UnsafeRawBufferPointer(start: second, count: 200).allSatisfy { $0 == 0 })
    }

    @Test("the largest real request decodes within the limits and the memory budget of a member's calls")
    func largestRequestFits() throws {
        let bytes = LargeRequests.firstImportPart.serializedBytes()
        #expect(bytes.count < WireProtocol.defaultMaximumPayloadLength)
        let arena = WireArena()
        let decoded = try withBytes(of: bytes) { (bytes) throws(DecodeError) in
            try WireCodec.unpack(WaterV1.ImportRequest.self, from: bytes, arena: arena, limits: .request)
        }
        #expect(decoded == LargeRequests.firstImportPart)
        #expect(arena.bytesInUse < 8 * bytes.count)
        arena.reset()
        #expect(arena.capacity == arena.maximumRetainedBytes)
    }

    @Test("refuses a message that would take far more memory than its size: empty submessages by the thousand")
    func memoryBudget() throws {
        // ImportRequest.history (field 1) holding 60 000 empty entries (field 3, length 0).
        let history = lengthDelimited(1, Array([[UInt8]](repeating: [0x1A, 0x00], count: 60_000).joined()))
        let arena = WireArena()
        let error = try #require(throws: DecodeError.self) {
            try withBytes(of: history) { (bytes) throws(DecodeError) in
                try WireCodec.unpack(WaterV1.ImportRequest.self, from: bytes, arena: arena, limits: .request)
            }
        }
        #expect(error.code == .tooLarge)
        #expect(WaterError(error).code == .resourceExhausted)
        #expect(arena.bytesInUse <= DecodeLimits.request.memoryBudget(forInputLength: history.count) + 4096)
        // Data this program wrote itself has no such budget.
        let decoded = try WaterV1.ImportRequest(serializedBytes: history)
        #expect(decoded.history?.entries.count == 60_000)
    }
}
