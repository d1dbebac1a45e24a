import Testing
import WaterProtocol

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
}
