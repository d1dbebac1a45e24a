import CWaterProto
import Glibc
import WaterCodec

/// A `RequestEnvelope` decoded into a ``WireArena`` and read where protobuf-c put it: what the
/// server needs of every frame, with no String or array made. The method is looked up in
/// ``MethodTable`` straight from its UTF-8 bytes; the token and the payload are the arena's.
///
/// - Important: Every buffer of a view is valid until its arena is reset. Decode the request
///   (``request(as:arena:limits:)``, which copies its values out) or copy what must outlive it.
///
/// `package`, as the server is: a public type's inlinable package methods cannot name package
/// types such as ``WireMessage`` (Swift 6.3).
package struct RequestEnvelopeView {
    /// The client's id for the call; never 0.
    package let callID: UInt64
    /// Whether the envelope ends the streaming call ``callID`` (then it names no method).
    package let isCancel: Bool
    /// The method called, or nil for a cancel or a method this server does not have (see
    /// ``unknownMethodError``).
    package let method: MethodDescriptor?
    /// The method's name as the client sent it, UTF-8 without U+0000 (checked).
    package let methodName: UnsafeRawBufferPointer
    /// The session token; empty for the handshake and login.
    package let authToken: UnsafeRawBufferPointer
    /// The method's request message, protobuf-encoded.
    package let payload: UnsafeRawBufferPointer

    /// Decodes a frame payload from a client into `arena`.
    /// - Throws: INVALID_ARGUMENT when the payload is not a `RequestEnvelope`, its call id is
    ///   0 or its method is not UTF-8; a refusal under `limits`. An unknown method is not
    ///   thrown: that call gets its own reply, and the connection goes on.
    package init(decoding bytes: UnsafeRawBufferPointer, arena: WireArena, limits: DecodeLimits) throws(WaterError) {
        let envelope: Water__V1__RequestEnvelope
        do {
            envelope = try WireCodec.unpackStruct(
                WaterV1.RequestEnvelope.wireDescriptor.pointer, from: bytes, arena: arena, limits: limits
            ).load(as: Water__V1__RequestEnvelope.self)
        } catch {
            throw WaterError(error)
        }
        guard envelope.call_id != WireProtocol.connectionCallID else {
            throw WaterError.invalidField("call_id", "call id 0 is reserved for the connection")
        }
        callID = envelope.call_id
        isCancel = envelope.cancel != 0
        // protobuf-c's strings end with a NUL, and WireCheck refused one inside.
        methodName = UnsafeRawBufferPointer(start: envelope.method, count: strlen(envelope.method))
        authToken = UnsafeRawBufferPointer(start: envelope.auth_token.data, count: envelope.auth_token.len)
        payload = UnsafeRawBufferPointer(start: envelope.payload.data, count: envelope.payload.len)
        method = isCancel ? nil : MethodTable.shared.method(named: methodName)
    }

    /// The reply to a call of a method this server does not have: UNIMPLEMENTED, quoting (at
    /// most 40 characters of) the name.
    package var unknownMethodError: WaterError {
        WaterError(
            .unimplemented,
            "unknown method \(quotedPeerText(String(decoding: methodName, as: UTF8.self))); "
                + "this server speaks protocol version \(WireProtocol.version)")
    }

    /// The call's request message, unpacked from ``payload`` into `arena` and read into its
    /// Swift value.
    /// - Throws: INVALID_ARGUMENT when the payload does not decode as the method's request; a
    ///   refusal under `limits`.
    @inlinable package func request<Request: RPCRequest & WireMessage>(
        as type: Request.Type, arena: WireArena, limits: DecodeLimits
    ) throws(WaterError) -> Request {
        precondition(
            method == Request.method, "\(Request.protoName) is not the request of \(String(describing: method))")
        do {
            return try WireCodec.unpack(type, from: payload, arena: arena, limits: limits)
        } catch {
            throw WaterError(error)
        }
    }
}
