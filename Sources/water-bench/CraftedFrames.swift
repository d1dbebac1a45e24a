import WaterCodec
import WaterCore
import WaterProtocol

/// Frames a client with no account can send, each a valid length-prefixed frame the server must
/// read, inflate and inspect: the kinds issue 18 names (repeated fields, unknown fields, highly
/// compressible payloads), compressed to about 1 KB on the wire and at most 4 KiB inflated
/// (what a connection may send before login).
enum CraftedFrames {
    struct Frame {
        var kind: String
        var bytes: [UInt8]
        /// Whether the server refuses the whole connection for it (a bad envelope or frame).
        var closesConnection: Bool
    }

    private static let login = WaterV1.LoginRequest.method
    /// Inflated payload size: the envelope must fit in 4 KiB before login.
    private static let inflatedTarget = 4000

    /// The flood's frames, in turn.
    static func flood() -> [Frame] {
        [
            Frame(kind: "repeated username", bytes: repeatedLogin(), closesConnection: false),
            Frame(kind: "unknown fields in Login", bytes: unknownLogin(), closesConnection: false),
            Frame(kind: "unknown fields in the envelope", bytes: unknownEnvelope(), closesConnection: true),
            Frame(kind: "8 KB of zeros, compressed", bytes: compressible(), closesConnection: true),
        ]
    }

    /// About `bytes` of frames that leave the connection open, so every one is answered.
    static func burst(bytes: Int) -> [[UInt8]] {
        let kinds = [repeatedLogin(), unknownLogin()]
        var frames: [[UInt8]] = []
        var total = 0
        while total < bytes {
            let frame = kinds[frames.count % kinds.count]
            frames.append(frame)
            total += frame.count
        }
        return frames
    }

    /// A Login whose username occurs hundreds of times (a singular field: proto3 lets the last
    /// one win), with values random enough to compress to about 1 KB.
    static func repeatedLogin() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var payload: [UInt8] = []
            while payload.count < inflatedTarget - 40 {
                payload += Wire.string(1, noisy("mumxxxxx", randomness, &random))
            }
            return Wire.envelope(callID: 2, method: login.fullName, payload: payload)
        }
    }

    /// A Login of unknown fields only (numbers the message does not have), varints and bytes.
    static func unknownLogin() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var payload: [UInt8] = []
            var number: UInt64 = 16
            while payload.count < inflatedTarget - 40 {
                payload += Wire.bytes(number, noisy("unknown!", randomness, &random))
                number += 1
            }
            return Wire.envelope(callID: 3, method: login.fullName, payload: payload)
        }
    }

    /// An envelope of unknown fields.
    static func unknownEnvelope() -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        return compressedToAbout1KB { randomness in
            var envelope = Wire.varint(1, 4)
            var number: UInt64 = 100
            while envelope.count < inflatedTarget {
                envelope += Wire.bytes(number, noisy("envelope", randomness, &random))
                number += 1
            }
            return envelope
        }
    }

    /// 8 KB of zeros that deflate makes about 40 bytes: refused by the ratio cap before it is
    /// inflated whole.
    static func compressible() -> [UInt8] {
        let envelope = Wire.varint(1, 5) + Wire.bytes(4, [UInt8](repeating: 0, count: 2 * inflatedTarget))
        return FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
    }

    /// An ImportRequest of `count` empty entries: one repeated field, ~2 bytes each.
    static func repeatedEntries(_ count: Int) -> [UInt8] {
        let entries = [UInt8]([0x1A, 0x00]).repeated(count)
        return Wire.bytes(1, entries)
    }

    /// The largest Import a member may send: a frame of 1 MiB of distinct, valid entries, on
    /// days within the member's caps (``BenchDrinks``).
    static func largestImport(token: [UInt8]) throws -> [UInt8] {
        var history = WaterV1.MemberHistory()
        let installation = UInt64.random(in: 1..<(1 << 62))
        for at in BenchDrinks.times(19_000, for: token) {
            let id = RecordID.timeOrdered(unixMilliseconds: at, counter: 0, installation: installation)
            history.entries.append(WaterV1.WaterEntry(entryID: id.description, amountMl: 250, atUnixMs: at))
        }
        let request = WaterV1.ImportRequest(history: history)
        return try FrameEncoder(maximumPayloadLength: WireProtocol.defaultMaximumPayloadLength)
            .encode(WaterV1.RequestEnvelope(callID: 2, request: request, authToken: token).serializedBytes())
    }

    /// One call's frame, with `payload` as its request's bytes.
    static func call(_ method: MethodDescriptor, _ payload: [UInt8], token: [UInt8], compressed: Bool) throws
        -> [UInt8]
    {
        let envelope = Wire.envelope(callID: 2, method: method.fullName, payload: payload, token: token)
        return compressed
            ? FrameEncoder.frame(flags: .compressed, wirePayload: Zlib.compress(envelope))
            : FrameEncoder.frame(flags: [], wirePayload: envelope)
    }

    /// The frame of the envelope `make` builds, compressed, with the share of random bytes that
    /// brings it nearest to 1 KB on the wire (at most 20 tries).
    private static func compressedToAbout1KB(_ make: (Double) -> [UInt8]) -> [UInt8] {
        var best: [UInt8] = []
        for step in 1...20 {
            let compressed = Zlib.compress(make(Double(step) / 20))
            if best.isEmpty || abs(compressed.count - 1000) < abs(best.count - 1000) { best = compressed }
            if compressed.count >= 1000 { break }
        }
        return FrameEncoder.frame(flags: .compressed, wirePayload: best)
    }

    /// `text` with each byte replaced by a random letter with probability `share`.
    private static func noisy(_ text: String, _ share: Double, _ random: inout SystemRandomNumberGenerator) -> [UInt8] {
        Array(text.utf8).map { byte in
            Double.random(in: 0..<1, using: &random) < share ? UInt8.random(in: 97...122, using: &random) : byte
        }
    }

    /// Protobuf's wire format by hand: what a hostile client writes, which the codec would not.
    enum Wire {
        static func varint(_ value: UInt64) -> [UInt8] {
            var (value, out) = (value, [UInt8]())
            while value >= 0x80 {
                out.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            return out + [UInt8(value)]
        }

        static func varint(_ number: UInt64, _ value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }

        static func bytes(_ number: UInt64, _ value: [UInt8]) -> [UInt8] {
            varint(number << 3 | 2) + varint(UInt64(value.count)) + value
        }

        static func string(_ number: UInt64, _ value: [UInt8]) -> [UInt8] { bytes(number, value) }

        /// A RequestEnvelope: call id (1), method (2), token (3), payload (4).
        static func envelope(callID: UInt64, method: String, payload: [UInt8], token: [UInt8] = []) -> [UInt8] {
            varint(1, callID) + string(2, Array(method.utf8)) + (token.isEmpty ? [] : bytes(3, token))
                + bytes(4, payload)
        }
    }
}

extension Array {
    /// The array's elements, `count` times over.
    fileprivate func repeated(_ count: Int) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(self.count * count)
        for _ in 0..<count { result += self }
        return result
    }
}
