import CAllocationCounter
import Glibc
import WaterCodec
import WaterProtocol

// Heap allocations per message of the codec's hot path, both ways of a LogWater call, counted
// on this thread by CAllocationCounter (malloc and friends, forwarded to glibc). Deterministic:
// one thread, the same messages every time, counted after a warm-up. One line per path,
// `name: allocations per message`: `arrays.*` through the API that makes an array per
// message (the client's, and the server's today), `arena.*` through the server's new path (a
// WireArena, a FrameDecoder's views, a RequestEnvelopeView, a FrameWriter into one output
// buffer). Tests/WaterProtocolTests/AllocationTests.swift runs it and holds the counts.
//
// Usage: water-codec-allocations [MESSAGES]   (default 10000; run a release build for the
//        figures the server gets: swift build -c release --product water-codec-allocations)

let messages = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
guard CAllocationCounter_isCounting() != 0 else {
    print("counting: unavailable (a sanitizer build owns malloc)")
    exit(0)
}

let request = WaterV1.LogWaterRequest(
    entryID: "0192f3a4-5b6c-8d7e-8f90-a1b2c3d4e5f6", amountMl: 250, atUnixMs: 1_796_025_600_000)
let token = [UInt8](repeating: 0xA5, count: 32)
let response = WaterV1.LogWaterResponse(
    entry: WaterV1.WaterEntry(
        entryID: request.entryID, amountMl: 250, atUnixMs: 1_796_025_600_000, date: "2026-11-30"),
    day: WaterV1.DaySummary(
        date: "2026-11-30", amountMl: 1250, goalMl: 2000, progress: 0.625, percent: 62, remainingMl: 750,
        count: 5, goalMet: false))
let encoder = FrameEncoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
let requestFrame = try encoder.encode(
    WaterV1.RequestEnvelope(callID: 7, request: request, authToken: token).serializedBytes())
let replyFrame = try encoder.encode(WaterV1.ResponseEnvelope(callID: 7, response: response).serializedBytes())

/// Allocations per run of `body`, after 100 runs of warm-up (caches, buffers that grow once).
func allocationsPerRun(_ body: () throws -> Int) rethrows -> Double {
    var sink = 0
    for _ in 0..<100 { sink &+= try body() }
    let before = CAllocationCounter_count()
    for _ in 0..<messages { sink &+= try body() }
    let after = CAllocationCounter_count()
    precondition(sink != 0)
    return Double(after - before) / Double(messages)
}

func report(_ name: String, _ value: Double) {
    let rounded = (value * 100).rounded() / 100
    print("\(name): \(rounded)")
}

print("heap allocations per message, over \(messages) messages after a warm-up")

// The API every caller has had: values in, [UInt8] out.
var decoder = FrameDecoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
report(
    "arrays.request.encode",
    try allocationsPerRun {
        try encoder.encode(WaterV1.RequestEnvelope(callID: 7, request: request, authToken: token).serializedBytes())
            .count
    })
report(
    "arrays.request.decode",
    try allocationsPerRun {
        decoder.append(requestFrame)
        guard let frame = try decoder.nextFrame() else { return 0 }
        let call = try IncomingCall(payload: frame.payload)
        return Int(try call.request(as: WaterV1.LogWaterRequest.self).amountMl)
    })
report(
    "arrays.reply.encode",
    try allocationsPerRun {
        try encoder.encode(WaterV1.ResponseEnvelope(callID: 7, response: response).serializedBytes()).count
    })
report(
    "arrays.reply.decode",
    try allocationsPerRun {
        decoder.append(replyFrame)
        guard let frame = try decoder.nextFrame() else { return 0 }
        let envelope = try WaterV1.ResponseEnvelope(serializedBytes: frame.payload)
        return Int(try envelope.response(as: WaterV1.LogWaterResponse.self).day?.count ?? 0)
    })

// The server's path: an arena and an output buffer used again for every call, the envelope and
// the payload read where they were decoded, the reply packed into the output.
let arena = WireArena()
let writer = FrameWriter(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
var output: [UInt8] = []
report(
    "arena.request.decode",
    try allocationsPerRun {
        arena.reset()
        decoder.append(requestFrame)
        guard let frame = try decoder.nextFrameView() else { return 0 }
        let envelope = try RequestEnvelopeView(decoding: frame.payload, arena: arena, limits: .request)
        let request = try envelope.request(as: WaterV1.LogWaterRequest.self, arena: arena, limits: .request)
        return Int(request.amountMl)
    })
report(
    "arena.reply.encode",
    allocationsPerRun {
        arena.reset()
        output.removeAll(keepingCapacity: true)
        writer.appendReply(callID: 7, response: response, to: &output, arena: arena)
        return output.count
    })
