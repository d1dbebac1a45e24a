import WaterCodec

/// Constants of the wire protocol that both ends must agree on (see proto/README.md).
public enum WireProtocol {
    /// The protocol version this code speaks, sent in the handshake.
    public static let version: UInt32 = 1

    /// The release of water-server, water-client and the WaterClient library, which `--version`
    /// shows and the handshake's `client_name` carries.
    public static let softwareVersion = "1.1.0"

    /// The default TCP port of `water-server`.
    public static let defaultPort: UInt16 = 7420

    /// The default limit on a frame's payload, on the wire and after inflating: 1 MiB.
    public static let defaultMaximumPayloadLength = 1 << 20

    /// How many times its length on the wire a compressed payload may inflate to. The
    /// protocol's payloads compress 2 to 10 times (the largest real one, the first part of a
    /// ten-year Import, 5 times: ids, times and amounts vary); deflate reaches 1032, so without
    /// a cap 1 KiB on the wire costs a full frame of decoding. At 64, the work of inflating and
    /// decoding stays proportional to the bytes a peer sends. Senders keep to it: the
    /// reference code sends a payload that would compress further uncompressed.
    public static let maximumCompressionRatio = 64

    /// The largest frame payload a connection may send before it has logged in (the handshake
    /// and Login: a username and a password): what a device with no account can make the
    /// server read and decode at once, whatever the frame limit after login.
    public static let maximumPayloadLengthBeforeLogin = 4096

    /// The call id reserved for connection-level statuses from the server.
    public static let connectionCallID: UInt64 = 0
}

extension WaterV1.RequestEnvelope {
    /// The envelope of one call of `request`'s method.
    @inlinable
    public init<Request: RPCRequest>(callID: UInt64, request: Request, authToken: [UInt8] = []) {
        self.init(
            callID: callID, method: Request.method.fullName, authToken: authToken,
            payload: request.serializedBytes())
    }
}

/// A message already encoded: a reply that many calls share (the household's board) is encoded
/// once, not once per call.
///
/// The generic initialisers here are inlinable, so a caller in another module (the server's
/// handlers) gets them specialised for its message type.
public struct Encoded<Message: ProtoMessage>: Sendable {
    public let bytes: [UInt8]

    @inlinable
    public init(_ message: Message) {
        bytes = message.serializedBytes()
    }

    /// The message again.
    @inlinable
    public func decoded() throws(WaterError) -> Message {
        do {
            return try Message(serializedBytes: bytes)
        } catch {
            throw WaterError(error)
        }
    }
}

extension WaterV1.ResponseEnvelope {
    /// A reply that carries `response`: the only reply of a unary call (`endOfStream` true) or
    /// one message of a stream (`endOfStream` false, no status).
    @inlinable
    public init(callID: UInt64, response: some ProtoMessage, endOfStream: Bool = true) {
        self.init(callID: callID, encoded: Encoded(response), endOfStream: endOfStream)
    }

    /// The same, for a response encoded beforehand.
    @inlinable
    public init<Response>(callID: UInt64, encoded: Encoded<Response>, endOfStream: Bool = true) {
        self.init(
            callID: callID, status: endOfStream ? WaterV1.Status(code: .ok) : nil,
            payload: encoded.bytes, endOfStream: endOfStream)
    }

    /// The last reply of a call that failed.
    public init(callID: UInt64, error: WaterError) {
        self.init(callID: callID, status: error.status, payload: [], endOfStream: true)
    }

    /// The status of the call, OK when a stream's intermediate reply carries none.
    public var statusCode: WaterV1.StatusCode { status?.code ?? .ok }

    /// The response message this reply carries.
    /// - Throws: the call's ``WaterError`` when the status is not OK, or INTERNAL when the
    ///   payload does not decode as `Response` (the server's fault, not the caller's).
    @inlinable
    public func response<Response: ProtoMessage>(as type: Response.Type) throws(WaterError) -> Response {
        if let status, status.code != .ok { throw WaterError(status) }
        do {
            return try Response(serializedBytes: payload)
        } catch {
            throw WaterError(.internal, "the server sent a \(Response.protoName) that does not decode")
        }
    }
}
