import Foundation
import Testing

@testable import WaterCodec
@testable import WaterProtocol

/// proto/README.md writes out one request frame and its reply in hex for people writing a
/// client in another language. These tests keep that page true: the bytes there are exactly
/// what this code sends and accepts.
@Suite("Frames documented in proto/README.md")
struct DocumentedFramesTests {
    static let entryID = "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e"
    static let token = [UInt8](repeating: 0x11, count: 32)

    static let request = WaterV1.RequestEnvelope(
        callID: 2, request: WaterV1.LogWaterRequest(entryID: entryID, amountMl: 250, atUnixMs: 1_764_504_000_000),
        authToken: token)

    static let reply = WaterV1.ResponseEnvelope(
        callID: 2,
        response: WaterV1.LogWaterResponse(
            entry: WaterV1.WaterEntry(entryID: entryID, amountMl: 250, atUnixMs: 1_764_504_000_000, date: "2025-11-30"),
            day: WaterV1.DaySummary(
                date: "2025-11-30", amountMl: 250, goalMl: 2000, progress: 0.125, percent: 12,
                remainingMl: 1750, count: 1)))

    /// The bytes of the ```hex block that follows `<!-- marker -->` in proto/README.md.
    static func documentedBytes(after marker: String) throws -> [UInt8] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../proto/README.md").standardizedFileURL
        let text = try String(contentsOf: readme, encoding: .utf8)
        let afterMarker = try #require(text.range(of: "<!-- \(marker) -->")).upperBound
        let blockStart = try #require(text.range(of: "```hex\n", range: afterMarker..<text.endIndex)).upperBound
        let blockEnd = try #require(text.range(of: "```", range: blockStart..<text.endIndex)).lowerBound
        return try text[blockStart..<blockEnd]
            .split(whereSeparator: \.isWhitespace)
            .filter { !$0.hasSuffix(":") }  // offsets like "0010:"
            .map { try #require(UInt8($0, radix: 16)) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    @Test("the request frame is what the encoder produces")
    func requestFrame() throws {
        let frame = try FrameEncoder(maximumPayloadLength: 1 << 20).encode(Self.request.serializedBytes())
        let documented = try Self.documentedBytes(after: "example-request-frame")
        #expect(documented == frame, "encoder: \(Self.hex(frame))")
    }

    @Test("the reply frame is what the server's encoder produces, and decodes to the documented reply")
    func replyFrame() throws {
        let frame = try FrameEncoder(maximumPayloadLength: 1 << 20).encode(Self.reply.serializedBytes())
        let documented = try Self.documentedBytes(after: "example-reply-frame")
        #expect(documented == frame, "encoder: \(Self.hex(frame))")

        // The server's own path: the reply written straight into its output buffer.
        var output: [UInt8] = []
        FrameWriter(maximumPayloadLength: 1 << 20).appendReply(
            callID: 2, response: try Self.reply.response(as: WaterV1.LogWaterResponse.self), to: &output,
            arena: WireArena())
        #expect(documented == output, "writer: \(Self.hex(output))")

        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        decoder.append(documented)
        let envelope = try WaterV1.ResponseEnvelope(serializedBytes: try #require(try decoder.nextFrame()).payload)
        #expect(envelope.callID == 2)
        #expect(envelope.endOfStream)
        #expect(try envelope.response(as: WaterV1.LogWaterResponse.self).day?.percent == 12)
    }
}
