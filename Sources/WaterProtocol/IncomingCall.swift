/// A call as the server receives it: the envelope decoded and its method looked up.
public struct IncomingCall: Sendable, Equatable {
    public let envelope: WaterV1.RequestEnvelope
    /// The method, or nil for a cancel, which names no method.
    public let method: MethodDescriptor?
    /// What the envelope was decoded under, and the request will be.
    public let limits: DecodeLimits

    public var callID: UInt64 { envelope.callID }

    /// Decodes a frame payload from a client.
    /// - Throws: INVALID_ARGUMENT when the payload is not a `RequestEnvelope` or has no call id,
    ///   UNIMPLEMENTED when it names a method this server does not have; a refusal under
    ///   `limits` (``DecodeLimits/beforeLogin`` for a connection not logged in).
    public init(payload: [UInt8], limits: DecodeLimits = .request) throws(WaterError) {
        let envelope = try WaterV1.RequestEnvelope(serializedBytes: payload, limits: limits)
        guard envelope.callID != WireProtocol.connectionCallID else {
            throw WaterError.invalidField("call_id", "call id 0 is reserved for the connection")
        }
        self.envelope = envelope
        self.limits = limits
        if envelope.cancel {
            self.method = nil
            return
        }
        guard let method = MethodTable.shared.method(named: envelope.method) else {
            throw WaterError(
                .unimplemented,
                "unknown method \(quotedPeerText(envelope.method)); this server speaks protocol version "
                    + "\(WireProtocol.version)")
        }
        self.method = method
    }

    /// The call's request message.
    /// - Throws: INVALID_ARGUMENT when the payload does not decode as the method's request; a
    ///   refusal under ``limits``.
    public func request<Request: RPCRequest>(as type: Request.Type) throws(WaterError) -> Request {
        precondition(
            method?.requestType == Request.protoName, "\(Request.protoName) is not the request of \(envelope.method)")
        return try Request(serializedBytes: envelope.payload, limits: limits)
    }
}
