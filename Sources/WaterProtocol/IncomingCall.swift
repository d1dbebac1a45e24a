import WaterCodec

/// A call as the server receives it: the envelope decoded and its method looked up, its values
/// copied out of the arena a ``RequestEnvelopeView`` decodes into (the view is the same thing
/// without the copies).
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
        let arena = WireArena(initialBlockSize: 1024)
        let view = try payload.withUnsafeBufferPointer { (bytes) throws(WaterError) in
            try RequestEnvelopeView(decoding: UnsafeRawBufferPointer(bytes), arena: arena, limits: limits)
        }
        if !view.isCancel, view.method == nil { throw view.unknownMethodError }
        self.init(copying: view, method: view.method, limits: limits)
    }

    /// The call an envelope decoded in an arena holds, its values copied out of it: what a
    /// handler that answers later (after the arena is reset) is given.
    package init(copying view: RequestEnvelopeView, method: MethodDescriptor?, limits: DecodeLimits) {
        self.envelope = WaterV1.RequestEnvelope(
            callID: view.callID, method: String(decoding: view.methodName, as: UTF8.self),
            authToken: Array(view.authToken), payload: Array(view.payload), cancel: view.isCancel)
        self.method = method
        self.limits = limits
    }

    /// The call's request message.
    /// - Throws: INVALID_ARGUMENT when the payload does not decode as the method's request; a
    ///   refusal under ``limits``.
    @inlinable
    public func request<Request: RPCRequest>(as type: Request.Type) throws(WaterError) -> Request {
        precondition(method == Request.method, "\(Request.protoName) is not the request of \(envelope.method)")
        do {
            return try Request(serializedBytes: envelope.payload, limits: limits)
        } catch {
            throw WaterError(error)
        }
    }
}
