import WaterProtocol

/// What one "log a drink" costs the codec on each side: the request envelope with its
/// LogWaterRequest, and the reply envelope with its LogWaterResponse, encoded and decoded,
/// in nanoseconds per message (median of 5 rounds of 20 000).
enum CodecBenchmark {
    static func run(record: (String, Double) -> Void) throws {
        let request = WaterV1.LogWaterRequest(
            entryID: "0192f3a4-5b6c-8d7e-8f90-a1b2c3d4e5f6", amountMl: 250,
            atUnixMs: 1_796_025_600_000)
        let token = [UInt8](repeating: 0xA5, count: 32)
        let response = WaterV1.LogWaterResponse(
            entry: WaterV1.WaterEntry(
                entryID: request.entryID, amountMl: 250, atUnixMs: 1_796_025_600_000, date: "2026-11-30"),
            day: WaterV1.DaySummary(
                date: "2026-11-30", amountMl: 1250, goalMl: 2000, progress: 0.625, percent: 62,
                remainingMl: 750, count: 5, goalMet: false))
        let requestBytes = WaterV1.RequestEnvelope(callID: 7, request: request, authToken: token).serializedBytes()
        let replyBytes = WaterV1.ResponseEnvelope(callID: 7, response: response).serializedBytes()

        record(
            "codec_log_request_encode_ns",
            nanoseconds {
                WaterV1.RequestEnvelope(callID: 7, request: request, authToken: token).serializedBytes().count
            })
        record(
            "codec_log_request_decode_ns",
            try nanoseconds {
                let envelope = try WaterV1.RequestEnvelope(serializedBytes: requestBytes)
                return Int(try WaterV1.LogWaterRequest(serializedBytes: envelope.payload).amountMl)
            })
        record(
            "codec_log_reply_encode_ns",
            nanoseconds {
                WaterV1.ResponseEnvelope(callID: 7, response: response).serializedBytes().count
            })
        record(
            "codec_log_reply_decode_ns",
            try nanoseconds {
                let envelope = try WaterV1.ResponseEnvelope(serializedBytes: replyBytes)
                return Int(try WaterV1.LogWaterResponse(serializedBytes: envelope.payload).day?.count ?? 0)
            })
    }

    /// The median over rounds of the time per call of `body`, whose result is kept so the
    /// work cannot be optimised away.
    private static func nanoseconds(_ body: () throws -> Int) rethrows -> Double {
        var rounds: [Double] = []
        var sink = 0
        for _ in 0..<5 {
            let start = Measure.now()
            for _ in 0..<20_000 { sink &+= try body() }
            rounds.append(Double(Measure.now() - start) / 20_000)
        }
        precondition(sink != 0)
        return Measure.median(rounds)
    }
}
