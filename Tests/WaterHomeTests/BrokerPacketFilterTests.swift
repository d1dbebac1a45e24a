import Testing

@testable import WaterHome

private let limit = 8192

/// A packet: its first byte, its remaining length as MQTT writes it, then `body` bytes.
private func packet(_ first: UInt8, body: Int) -> [UInt8] {
    var length: [UInt8] = []
    var left = body
    repeat {
        length.append(UInt8(left % 128) | (left >= 128 ? 0x80 : 0))
        left /= 128
    } while left > 0
    return [first] + length + [UInt8](repeating: 0x61, count: body)
}

/// What a broker sends a client like the server's over a connection: CONNACK (MQTT 5, with
/// properties), SUBACK, two retained QoS 0 PUBLISH (one of the largest size allowed), PUBACK,
/// UNSUBACK, PINGRESP, DISCONNECT.
private let session: [UInt8] =
    packet(0x20, body: 40) + packet(0x90, body: 5) + packet(0x31, body: 600) + packet(0x31, body: limit - 3)
    + packet(0x40, body: 2) + packet(0xB0, body: 4) + packet(0xD0, body: 0) + packet(0xE0, body: 1)

/// Feeds `bytes` in pieces of `sizes` (the last size repeats); the offset of the first piece
/// refused and why, or nil when all pass.
private func feed(_ bytes: [UInt8], inPiecesOf sizes: [Int]) -> (offset: Int, refusal: BrokerPacketFilter.Refusal)? {
    var filter = BrokerPacketFilter(maximumPacketLength: limit)
    var offset = 0
    var piece = 0
    while offset < bytes.count {
        let end = min(offset + sizes[min(piece, sizes.count - 1)], bytes.count)
        do {
            try filter.check(bytes[offset..<end])
        } catch {
            return (offset, error)
        }
        offset = end
        piece += 1
    }
    return nil
}

@Suite("BrokerPacketFilter")
struct BrokerPacketFilterTests {
    @Test("passes a well-behaved broker's packets one byte at a time, all at once, and one packet per piece")
    func wellBehaved() {
        #expect(feed(session, inPiecesOf: [1]) == nil)
        #expect(feed(session, inPiecesOf: [session.count]) == nil)
        #expect(feed(session, inPiecesOf: [42, 7, 603, limit, 4, 6, 2, 3]) == nil)
    }

    @Test("passes every split of the session into two pieces")
    func everySplit() {
        for split in 1..<session.count {
            #expect(feed(session, inPiecesOf: [split, session.count]) == nil, "split at \(split)")
        }
    }

    @Test(
        "refuses at the byte that makes a packet unacceptable, before any of its body",
        arguments: [
            (packet(0x34, body: 20), BrokerPacketFilter.Refusal.publishQoS(2), 0),
            (packet(0x32, body: 20), .publishQoS(1), 0),
            (packet(0x62, body: 2), .unexpectedType(6), 0),  // PUBREL
            (packet(0x50, body: 2), .unexpectedType(5), 0),  // PUBREC: the server publishes at QoS 1
            (packet(0x10, body: 12), .unexpectedType(1), 0),  // CONNECT
            (packet(0x82, body: 8), .unexpectedType(8), 0),  // SUBSCRIBE
            (packet(0xF0, body: 0), .unexpectedType(15), 0),  // AUTH: the server asks for none
            (packet(0x00, body: 0), .unexpectedType(0), 0),
            // 256 MB announced: refused at the last byte of its length, before the body.
            ([0x30, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x05], .tooLarge(length: 268_435_460, limit: limit), 4),
            (packet(0x31, body: limit - 2), .tooLarge(length: limit + 1, limit: limit), 2),
            ([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .malformedLength, 4),
        ])
    func refusals(bytes: [UInt8], refusal: BrokerPacketFilter.Refusal, at offset: Int) {
        let stream = session + bytes
        for pieces in [[1], [stream.count], [session.count, 1]] {
            let refused = feed(stream, inPiecesOf: pieces)
            #expect(refused?.refusal == refusal)
            if pieces == [1] { #expect(refused?.offset == session.count + offset) }
        }
    }

    @Test("a packet of exactly the limit passes; the limit counts the fixed header")
    func exactlyTheLimit() {
        let largest = packet(0x30, body: limit - 3)
        #expect(largest.count == limit)
        #expect(feed(largest, inPiecesOf: [1]) == nil)
    }
}
