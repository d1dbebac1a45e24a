import Testing
import WaterProtocol

@Suite("IncomingCall")
struct IncomingCallTests {
    @Test("finds the method and decodes its request")
    func decodesACall() throws {
        let envelope = WaterV1.RequestEnvelope(
            callID: 7, request: WaterV1.LogWaterRequest(entryID: "e", amountMl: 300),
            authToken: [1, 2, 3])
        let call = try IncomingCall(payload: envelope.serializedBytes())
        #expect(call.callID == 7)
        #expect(call.method == WaterV1.LogWaterRequest.method)
        #expect(call.envelope.authToken == [1, 2, 3])
        #expect(try call.request(as: WaterV1.LogWaterRequest.self).amountMl == 300)
    }

    @Test("answers an unknown method with UNIMPLEMENTED")
    func unknownMethod() {
        let envelope = WaterV1.RequestEnvelope(callID: 1, method: "water.v1.Tracker/Teleport")
        #expect {
            try IncomingCall(payload: envelope.serializedBytes())
        } throws: { error in
            let error = error as? WaterError
            return error?.code == .unimplemented && error?.message.contains("water.v1.Tracker/Teleport") == true
        }
    }

    @Test("rejects an envelope that is not protobuf with INVALID_ARGUMENT")
    func garbageEnvelope() {
        #expect {
            try IncomingCall(payload: [0xFF, 0x00, 0x13])
        } throws: { error in
            (error as? WaterError)?.code == .invalidArgument
        }
    }

    @Test("rejects call id 0, which belongs to the connection")
    func reservedCallID() {
        let envelope = WaterV1.RequestEnvelope(callID: 0, request: WaterV1.GetTodayRequest())
        #expect {
            try IncomingCall(payload: envelope.serializedBytes())
        } throws: { error in
            (error as? WaterError)?.violations.first?.field == "call_id"
        }
    }

    @Test("rejects a request payload that is not the method's request")
    func garbageRequest() throws {
        var envelope = WaterV1.RequestEnvelope(callID: 3, request: WaterV1.LogWaterRequest())
        envelope.payload = [0x10]
        let call = try IncomingCall(payload: envelope.serializedBytes())
        #expect(throws: WaterError.self) { try call.request(as: WaterV1.LogWaterRequest.self) }
    }

    @Test("takes a cancel, which names no method")
    func cancel() throws {
        let call = try IncomingCall(payload: WaterV1.RequestEnvelope(callID: 9, cancel: true).serializedBytes())
        #expect(call.method == nil)
        #expect(call.envelope.cancel)
    }
}

@Suite("ResponseEnvelope")
struct ResponseEnvelopeTests {
    @Test("carries a response with an OK status and the end of the stream")
    func success() throws {
        let reply = WaterV1.ResponseEnvelope(
            callID: 4, response: WaterV1.SetGoalResponse(settings: WaterV1.Settings(dailyGoalMl: 2500)))
        let decoded = try WaterV1.ResponseEnvelope(serializedBytes: reply.serializedBytes())
        #expect(decoded.endOfStream)
        #expect(decoded.statusCode == .ok)
        #expect(try decoded.response(as: WaterV1.SetGoalResponse.self).settings?.dailyGoalMl == 2500)
    }

    @Test("carries an error that the client gets back as the same WaterError")
    func failure() throws {
        let error = WaterError.invalidField("amount_ml", "a drink must be between 1 and 2000 ml, got 2500")
        let decoded = try WaterV1.ResponseEnvelope(
            serializedBytes: WaterV1.ResponseEnvelope(callID: 4, error: error).serializedBytes())
        #expect(decoded.endOfStream)
        #expect(throws: error) { try decoded.response(as: WaterV1.LogWaterResponse.self) }
    }

    @Test("marks a stream's intermediate replies with no status")
    func streamMessage() {
        let reply = WaterV1.ResponseEnvelope(callID: 2, response: WaterV1.WatchBoardResponse(), endOfStream: false)
        #expect(reply.status == nil)
        #expect(!reply.endOfStream)
    }
}

@Suite("WaterError")
struct WaterErrorTests {
    @Test(
        "uses gRPC's canonical code numbers",
        arguments: [
            (WaterV1.StatusCode.ok, 0), (.cancelled, 1), (.unknown, 2), (.invalidArgument, 3), (.deadlineExceeded, 4),
            (.notFound, 5), (.alreadyExists, 6), (.permissionDenied, 7), (.resourceExhausted, 8),
            (.failedPrecondition, 9), (.aborted, 10), (.outOfRange, 11), (.unimplemented, 12), (.internal, 13),
            (.unavailable, 14), (.dataLoss, 15), (.unauthenticated, 16),
        ] as [(WaterV1.StatusCode, Int32)])
    func codeNumbers(code: WaterV1.StatusCode, number: Int32) {
        #expect(code.rawValue == number)
    }

    @Test("describes itself with the code's proto name")
    func description() {
        #expect(WaterError(.notFound, "no entry 1234").description == "NOT_FOUND: no entry 1234")
        #expect(WaterError(WaterV1.StatusCode(rawValue: 77), "future").description == "CODE_77: future")
    }
}
