import Testing

@testable import WaterCodec
@testable import WaterProtocol

/// Decodes `envelope` as the server does: a view into `arena`.
private func view(_ envelope: WaterV1.RequestEnvelope, in arena: WireArena, limits: DecodeLimits = .request)
    throws(WaterError) -> RequestEnvelopeView
{
    try view(envelope.serializedBytes(), in: arena, limits: limits)
}

private func view(_ bytes: [UInt8], in arena: WireArena, limits: DecodeLimits = .request) throws(WaterError)
    -> RequestEnvelopeView
{
    try withBytes(of: bytes) { (bytes) throws(WaterError) in
        try RequestEnvelopeView(decoding: bytes, arena: arena, limits: limits)
    }
}

@Suite("RequestEnvelopeView")
struct RequestEnvelopeViewTests {
    @Test("finds every method of the table from the envelope's bytes")
    func everyMethod() throws {
        let arena = WireArena()
        for method in MethodTable.shared.methods {
            arena.reset()
            let decoded = try view(WaterV1.RequestEnvelope(callID: 3, method: method.fullName), in: arena)
            #expect(decoded.method == method)
            #expect(String(decoding: decoded.methodName, as: UTF8.self) == method.fullName)
        }
    }

    @Test("reads the call id, token and payload in place, and decodes the request from the payload")
    func fields() throws {
        let arena = WireArena()
        let request = WaterV1.LogWaterRequest(entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250)
        let token = [UInt8](repeating: 0x11, count: 32)
        let decoded = try view(WaterV1.RequestEnvelope(callID: 9, request: request, authToken: token), in: arena)
        #expect(decoded.callID == 9)
        #expect(!decoded.isCancel)
        #expect(decoded.method == WaterV1.LogWaterRequest.method)
        #expect(Array(decoded.authToken) == token)
        #expect(Array(decoded.payload) == request.serializedBytes())
        #expect(try decoded.request(as: WaterV1.LogWaterRequest.self, arena: arena, limits: .request) == request)
    }

    @Test("leaves an unknown method to the call: no method, and an UNIMPLEMENTED error that quotes it")
    func unknownMethod() throws {
        let decoded = try view(WaterV1.RequestEnvelope(callID: 4, method: "water.v1.Tracker/Teleport"), in: WireArena())
        #expect(decoded.method == nil)
        #expect(decoded.callID == 4)
        #expect(decoded.unknownMethodError.code == .unimplemented)
        #expect(decoded.unknownMethodError.message.contains("\"water.v1.Tracker/Teleport\""))
        // A prefix or an extension of a real name is no name either.
        for name in ["water.v1.Tracker/LogWate", "water.v1.Tracker/LogWaterX", "", "water.v1.tracker/LogWater"] {
            #expect(try view(WaterV1.RequestEnvelope(callID: 4, method: name), in: WireArena()).method == nil)
        }
    }

    @Test("takes a cancel, which names no method")
    func cancel() throws {
        let decoded = try view(WaterV1.RequestEnvelope(callID: 9, cancel: true), in: WireArena())
        #expect(decoded.isCancel)
        #expect(decoded.method == nil)
        #expect(decoded.callID == 9)
    }

    @Test("refuses call id 0, a method that is not UTF-8, and an envelope over the limits")
    func refusals() throws {
        let zero = try #require(throws: WaterError.self) {
            try view(WaterV1.RequestEnvelope(callID: 0, method: "water.v1.Tracker/GetToday"), in: WireArena())
        }
        #expect(zero.violations.map(\.field) == ["call_id"])
        let badName = try #require(throws: WaterError.self) {
            try view(varintField(1, 5) + lengthDelimited(2, [0x77, 0xFF]), in: WireArena())
        }
        #expect(badName.violations.map(\.field) == ["method"])
        let flood = varintField(1, 5) + Array([[UInt8]](repeating: varintField(15, 1), count: 100).joined())
        let tooMany = try #require(throws: WaterError.self) { try view(flood, in: WireArena(), limits: .beforeLogin) }
        #expect(tooMany.code == .resourceExhausted)
    }

    @Test("decodes one envelope after another in one arena, each right until the arena is reset")
    func reusedArena() throws {
        let arena = WireArena()
        var capacity = 0
        for callID in UInt64(1)...500 {
            arena.reset()
            let request = WaterV1.SetGoalRequest(dailyGoalMl: Int32(callID))
            let decoded = try view(WaterV1.RequestEnvelope(callID: callID, request: request), in: arena)
            #expect(decoded.callID == callID)
            #expect(try decoded.request(as: WaterV1.SetGoalRequest.self, arena: arena, limits: .request) == request)
            if callID == 1 { capacity = arena.capacity }
            #expect(arena.capacity == capacity)
        }
    }
}
