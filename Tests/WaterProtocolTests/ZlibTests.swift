import Testing

@testable import WaterCodec
@testable import WaterProtocol

@Suite("Zlib")
struct ZlibTests {
    private let text = Array(String(repeating: "drink water, ", count: 1000).utf8)

    @Test("round-trips and shrinks repetitive data")
    func roundTrip() throws {
        let compressed = Zlib.compress(text)
        #expect(compressed.count < text.count / 20)
        #expect(try Zlib.decompress(compressed, limit: text.count) == text)
    }

    @Test("round-trips empty input")
    func empty() throws {
        #expect(try Zlib.decompress(Zlib.compress([]), limit: 0) == [])
    }

    @Test("stops at the limit: exactly the limit passes, one byte less fails")
    func limit() throws {
        let compressed = Zlib.compress(text)
        #expect(try Zlib.decompress(compressed, limit: text.count).count == text.count)
        #expect(throws: Zlib.InflateError.tooLarge(limit: text.count - 1)) {
            try Zlib.decompress(compressed, limit: text.count - 1)
        }
    }

    @Test("rejects a truncated stream")
    func truncated() {
        let compressed = Zlib.compress(text)
        #expect(throws: Zlib.InflateError.self) { try Zlib.decompress(compressed.dropLast(4), limit: 1 << 20) }
    }

    @Test("rejects bytes after the end of the stream")
    func trailingBytes() {
        #expect(throws: Zlib.InflateError.self) { try Zlib.decompress(Zlib.compress(text) + [0], limit: 1 << 20) }
    }

    @Test("rejects a flipped bit (the Adler-32 trailer or the structure catches it)")
    func flippedBit() {
        var compressed = Zlib.compress(text)
        compressed[compressed.count / 2] ^= 0x10
        #expect(throws: Zlib.InflateError.self) { try Zlib.decompress(compressed, limit: 1 << 20) }
    }

    @Test("the ratio cap passes a payload that inflates to exactly the ratio, and refuses one byte more")
    func ratioBoundary() throws {
        let compressed = Zlib.compress(text)
        let ratio = (text.count + compressed.count - 1) / compressed.count  // the smallest that passes
        #expect(try Zlib.decompress(compressed, limit: 1 << 20, maximumRatio: ratio) == text)
        #expect(throws: Zlib.InflateError.ratioExceeded(maximumRatio: ratio - 1)) {
            try Zlib.decompress(compressed, limit: 1 << 20, maximumRatio: ratio - 1)
        }
    }

    @Test("refuses a zlib bomb as soon as the output passes the ratio, not after inflating it all")
    func bombStopsEarly() throws {
        let bomb = Zlib.compress([UInt8](repeating: 0, count: 64 << 20))  // 64 MiB of zeros, ~64 KiB
        var output = GrowableBytes()
        #expect(throws: Zlib.InflateError.ratioExceeded(maximumRatio: 64)) {
            try withBytes(of: bomb) { (bytes) throws(Zlib.InflateError) in
                try Zlib.decompress(bytes, into: &output, limit: 1 << 30, maximumRatio: 64)
            }
        }
        // What was produced before refusing: up to the ratio, and one byte past it.
        #expect(output.count <= 64 * bomb.count + 1)
    }

    @Test("the largest real request, compressed, is well within the ratio cap")
    func realPayloadPasses() throws {
        let payload = LargeRequests.firstImportPart.serializedBytes()
        let compressed = Zlib.compress(payload)
        #expect(compressed.count * 16 > payload.count)  // under 16:1, far from 64
        #expect(
            try Zlib.decompress(compressed, limit: 1 << 20, maximumRatio: WireProtocol.maximumCompressionRatio)
                == payload)
    }
}
