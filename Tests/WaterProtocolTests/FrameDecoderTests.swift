import Testing
import WaterCodec
import WaterProtocol

/// Three frames of different shapes, as one byte stream.
private let payloads: [[UInt8]] = [Array("first".utf8), [], Array(repeating: 0xAB, count: 300)]
private let stream = payloads.flatMap { FrameEncoder.frame(flags: [], wirePayload: $0) }

/// Feeds `stream` in pieces of `sizes` (cycled) and returns every payload decoded, through the
/// borrowed views and through the copies: both must give the same.
private func decode(_ bytes: [UInt8], inPiecesOf sizes: [Int], limit: Int = 1024) throws -> [[UInt8]] {
    func run(_ next: (inout FrameDecoder) throws -> [UInt8]?) throws -> [[UInt8]] {
        var decoder = FrameDecoder(maximumPayloadLength: limit)
        var decoded: [[UInt8]] = []
        var index = 0
        var piece = 0
        while index < bytes.count {
            let end = min(index + sizes[piece % sizes.count], bytes.count)
            decoder.append(bytes[index..<end])
            index = end
            piece += 1
            while let payload = try next(&decoder) { decoded.append(payload) }
        }
        try decoder.finish()
        #expect(decoder.bufferedByteCount == 0)
        return decoded
    }
    let viewed = try run { try $0.nextFrameView().map { Array($0.payload) } }
    let copied = try run { try $0.nextFrame()?.payload }
    #expect(viewed == copied)
    return viewed
}

@Suite("FrameDecoder")
struct FrameDecoderTests {
    @Test("decodes frames delivered one byte at a time")
    func dripFeed() throws {
        #expect(try decode(stream, inPiecesOf: [1]) == payloads)
    }

    @Test("decodes frames delivered all at once")
    func allAtOnce() throws {
        #expect(try decode(stream, inPiecesOf: [stream.count]) == payloads)
    }

    @Test("decodes frames delivered one per chunk")
    func onePerChunk() throws {
        let sizes = payloads.map { $0.count + FrameDecoder.headerLength }
        #expect(try decode(stream, inPiecesOf: sizes) == payloads)
    }

    @Test("decodes frames delivered two and a half at a time")
    func twoAndAHalf() throws {
        let frame = FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 7, count: 11))
        let many = Array([[UInt8]](repeating: frame, count: 10).joined())
        let decoded = try decode(many, inPiecesOf: [frame.count * 5 / 2])
        #expect(decoded == Array(repeating: Array(repeating: 7, count: 11), count: 10))
    }

    @Test("decodes every split of the stream into two pieces", arguments: 1..<40)
    func everySplit(at split: Int) throws {
        #expect(try decode(stream, inPiecesOf: [split, stream.count]) == payloads)
    }

    @Test("returns nil until a frame is complete and keeps leftover bytes for the next one")
    func leftoverBytes() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        let second = FrameEncoder.frame(flags: [], wirePayload: [9, 9, 9])
        decoder.append(FrameEncoder.frame(flags: [], wirePayload: [1, 2]) + second.prefix(3))
        #expect(try decoder.nextFrame() == Frame(payload: [1, 2]))
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 3)
        #expect(decoder.isInsideFrame)
        decoder.append(second.dropFirst(3))
        #expect(try decoder.nextFrame() == Frame(payload: [9, 9, 9]))
        #expect(!decoder.isInsideFrame)
    }

    @Test("rejects an oversized length from the header alone, before any payload arrives")
    func oversizedLength() {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append([0x00, 0xFF, 0xFF, 0xFF, 0xFF])  // announces 4 GiB, sends nothing more
        #expect(throws: FrameError.frameTooLarge(length: 0xFFFF_FFFF, limit: 1024)) { try decoder.nextFrame() }
        #expect(decoder.bufferedByteCount == FrameDecoder.headerLength)
    }

    @Test("accepts a payload of exactly the limit and rejects one byte more")
    func limitBoundary() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 16)
        decoder.append(FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 1, count: 16)))
        #expect(try decoder.nextFrame()?.payload.count == 16)
        decoder.append(FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 1, count: 17)))
        #expect(throws: FrameError.frameTooLarge(length: 17, limit: 16)) { try decoder.nextFrame() }
    }

    @Test("rejects reserved flag bits", arguments: [0x02, 0x04, 0x80, 0xFF] as [UInt8])
    func reservedFlags(flags: UInt8) {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append([flags, 0, 0, 0, 1, 42])
        #expect(throws: FrameError.reservedFlags(flags)) { try decoder.nextFrame() }
    }

    @Test("reports a stream that ends inside a header")
    func truncatedHeader() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append([0x00, 0x00, 0x00])
        #expect(try decoder.nextFrame() == nil)
        #expect(throws: FrameError.truncatedHeader(received: 3)) { try decoder.finish() }
    }

    @Test("reports a stream that ends inside a payload")
    func truncatedPayload() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append(FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 5, count: 10)).prefix(9))
        #expect(try decoder.nextFrame() == nil)
        #expect(throws: FrameError.truncatedPayload(expected: 10, received: 4)) { try decoder.finish() }
    }

    @Test("inflates a compressed payload")
    func compressedPayload() throws {
        let payload = Array((0..<300).map { "drink \($0 * 7 % 1000) ml, " }.joined().utf8)
        let bytes = try FrameEncoder(maximumPayloadLength: 8192, compressionThreshold: 64).encode(payload)
        #expect(bytes[0] == FrameFlags.compressed.rawValue)
        #expect(bytes.count < payload.count / 2)
        #expect(try decode(bytes, inPiecesOf: [1], limit: 8192) == [payload])
    }

    @Test("decodes compressed and plain frames in turn, each view good until the next call")
    func compressedAndPlainInTurn() throws {
        let encoder = FrameEncoder(maximumPayloadLength: 1 << 20, compressionThreshold: 64)
        let payloads = (0..<6).map { index in
            Array((0..<(index % 2 == 0 ? 400 : 5)).map { "\(index): \($0 * 13 % 997) " }.joined().utf8)
        }
        let stream = try payloads.flatMap { try encoder.encode($0) }
        #expect(try decode(stream, inPiecesOf: [1, 7, 300], limit: 1 << 20) == payloads)
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        decoder.append(stream)
        for payload in payloads {
            let frame = try #require(try decoder.nextFrameView())
            #expect(frame.flags.contains(.compressed) == (payload.count > 64))
            #expect(Array(frame.payload) == payload)
        }
        #expect(try decoder.nextFrameView() == nil)
    }

    @Test("rejects a zlib bomb that would inflate past the limit")
    func zlibBomb() {
        let bomb = Zlib.compress([UInt8](repeating: 0, count: 8 << 20))  // 8 MiB of zeros, ~8 KiB
        #expect(bomb.count < 16 * 1024)
        // With no ratio cap, the absolute cap stops it.
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20, maximumCompressionRatio: .max)
        decoder.append(FrameEncoder.frame(flags: .compressed, wirePayload: bomb))
        #expect(throws: FrameError.inflatedTooLarge(limit: 1 << 20)) { try decoder.nextFrame() }
    }

    @Test("rejects, by the ratio cap, a zlib bomb well under the frame limit")
    func zlibBombUnderTheLimit() {
        let bomb = Zlib.compress([UInt8](repeating: 0, count: 256 << 10))  // 256 KiB of zeros, ~260 bytes
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        decoder.append(FrameEncoder.frame(flags: .compressed, wirePayload: bomb))
        #expect(throws: FrameError.compressionRatioExceeded(compressedLength: bomb.count, maximumRatio: 64)) {
            try decoder.nextFrame()
        }
    }

    @Test("keeps its buffers between frames, and gives one back after a frame larger than it keeps")
    func buffersAreReused() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
        let small = FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 1, count: 100))
        decoder.append(small)
        let first = try #require(try decoder.nextFrameView()).payload.baseAddress
        decoder.append(small)
        #expect(try decoder.nextFrameView()?.payload.baseAddress == first)
        let large = FrameEncoder.frame(flags: [], wirePayload: Array(repeating: 2, count: 200_000))
        decoder.append(large)
        #expect(try decoder.nextFrameView()?.payload.count == 200_000)
        decoder.append(small)
        #expect(Array(try #require(try decoder.nextFrameView()).payload) == Array(small.dropFirst(5)))
    }

    @Test("rejects a compressed payload that is not zlib")
    func corruptCompressedPayload() {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append(FrameEncoder.frame(flags: .compressed, wirePayload: Array("not zlib at all".utf8)))
        #expect {
            try decoder.nextFrame()
        } throws: { error in
            guard case FrameError.corruptCompressedPayload = error else { return false }
            return true
        }
    }
}

@Suite("FrameEncoder")
struct FrameEncoderTests {
    @Test("writes flags, a big-endian length and the payload")
    func layout() throws {
        let bytes = try FrameEncoder(maximumPayloadLength: 1 << 20).encode(Array(repeating: 0x61, count: 0x0102))
        #expect(Array(bytes.prefix(5)) == [0x00, 0x00, 0x00, 0x01, 0x02])
        #expect(bytes.count == 5 + 0x0102)
    }

    @Test("refuses a payload the peer would refuse")
    func oversized() {
        #expect(throws: FrameError.frameTooLarge(length: 11, limit: 10)) {
            try FrameEncoder(maximumPayloadLength: 10).encode(Array(repeating: 0, count: 11))
        }
    }

    @Test("leaves a payload uncompressed when compressing does not shrink it")
    func incompressible() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let bytes = try FrameEncoder(maximumPayloadLength: 1 << 20, compressionThreshold: 16).encode(noise)
        #expect(bytes[0] == 0)
        #expect(Array(bytes.dropFirst(5)) == noise)
    }
}
