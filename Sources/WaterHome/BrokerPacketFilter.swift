/// Checks the packets the broker sends before libmosquitto reads a byte of them, by their fixed
/// header alone (MQTT 5, section 2.1.1):
///
///     +-------------+-------------+------------------------------+---------------------------+
///     | packet type | flags       | remaining length             | variable header, payload  |
///     | 4 bits      | 4 bits      | 1-4 B, 7 bits each, low first | `remaining length` bytes  |
///     +-------------+-------------+------------------------------+---------------------------+
///
/// libmosquitto 2.0.11, as a client, allocates a packet's whole remaining length (up to 256 MB)
/// as soon as it has read it, and keeps every QoS 2 PUBLISH until the broker releases it, so both
/// are refused here first. Allowed: what a broker sends a client that publishes at QoS 1 and
/// subscribes at QoS 0 (CONNACK, PUBLISH at QoS 0, PUBACK, SUBACK, UNSUBACK, PINGRESP,
/// DISCONNECT), each of at most ``maximumPacketLength`` bytes in all. Anything else ends the
/// connection: the server tells the broker this limit in its CONNECT, so a broker that keeps to
/// MQTT 5 never sends more.
///
/// A value over bytes with no descriptor: fed each chunk as it arrives, at any split.
struct BrokerPacketFilter {
    /// Why the broker's bytes are refused.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        /// A packet of `length` bytes in all, over `limit`.
        case tooLarge(length: Int, limit: Int)
        /// A PUBLISH at QoS 1 or 2: the server subscribes at QoS 0 only.
        case publishQoS(Int)
        /// A packet a broker never sends this client (a PUBREL, a SUBSCRIBE, a reserved type).
        case unexpectedType(UInt8)
        /// A remaining length of more than 4 bytes, which MQTT cannot say.
        case malformedLength

        var description: String {
            switch self {
            case .tooLarge(let length, let limit): "a packet of \(length) bytes (at most \(limit))"
            case .publishQoS(let qos): "a PUBLISH at QoS \(qos) (the server subscribes at QoS 0)"
            case .unexpectedType(let type): "a packet of type \(type), which a broker does not send this client"
            case .malformedLength: "a remaining length longer than 4 bytes"
            }
        }
    }

    private enum State {
        /// At a packet's first byte.
        case header
        /// Reading the remaining length: what of it so far, in `bytes` bytes.
        case length(value: Int, bytes: Int)
        /// Within a packet's body: this many bytes left.
        case body(left: Int)
    }

    /// CONNACK, PUBLISH, PUBACK, SUBACK, UNSUBACK, PINGRESP, DISCONNECT.
    private static let allowedTypes: Set<UInt8> = [2, 3, 4, 9, 11, 13, 14]
    private static let publish: UInt8 = 3

    /// The largest packet allowed, fixed header included.
    let maximumPacketLength: Int
    private var state = State.header

    init(maximumPacketLength: Int) {
        self.maximumPacketLength = maximumPacketLength
    }

    /// Checks the next bytes of the stream. Once it throws, the stream is refused and the
    /// filter must not be fed again.
    /// - Throws: ``Refusal`` at the first byte that makes a packet unacceptable: its type byte,
    ///   or the last byte of its remaining length, before any of its body.
    mutating func check(_ bytes: some RandomAccessCollection<UInt8>) throws(Refusal) {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .header:
                let type = bytes[index] >> 4
                guard Self.allowedTypes.contains(type) else { throw .unexpectedType(type) }
                if type == Self.publish {
                    let qos = Int(bytes[index] >> 1) & 3
                    guard qos == 0 else { throw .publishQoS(qos) }
                }
                state = .length(value: 0, bytes: 0)
                index = bytes.index(after: index)
            case .length(let value, let count):
                let byte = bytes[index]
                let length = value | Int(byte & 0x7F) << (7 * count)
                index = bytes.index(after: index)
                if byte & 0x80 != 0 {
                    guard count < 3 else { throw .malformedLength }
                    state = .length(value: length, bytes: count + 1)
                    continue
                }
                let whole = 1 + (count + 1) + length
                guard whole <= maximumPacketLength else {
                    throw .tooLarge(length: whole, limit: maximumPacketLength)
                }
                state = length == 0 ? .header : .body(left: length)
            case .body(let left):
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let taken = min(left, available)
                index = bytes.index(index, offsetBy: taken)
                state = taken == left ? .header : .body(left: left - taken)
            }
        }
    }
}
