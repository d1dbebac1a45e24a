import WaterProtocol

/// Who may call a method.
enum Access: Sendable {
    /// No token needed: Handshake and Login.
    case anyone
    /// Any logged-in member, acting on their own data.
    case member
    /// Logged-in admins only.
    case admin
}

/// How a handler answers a call: exactly one ``reply(_:)`` for a unary call; any number of
/// ``yield(_:)`` and then one ``finish(_:)`` for a stream. The connection counts the call as
/// finished at the final reply.
struct Responder: Sendable {
    let callID: UInt64
    let method: String
    let deliver: @Sendable (ResponseEnvelope) -> Void
    /// Registers what to do when the client cancels the call or the connection closes.
    let onCancel: @Sendable (@escaping @Sendable () -> Void) -> Void

    func reply<Response: ProtoMessage>(_ result: Result<Response, WaterError>) {
        switch result {
        case .success(let response): deliver(ResponseEnvelope(callID: callID, response: response))
        case .failure(let error): deliver(ResponseEnvelope(callID: callID, error: error))
        }
    }

    func yield<Response: ProtoMessage>(_ response: Response) {
        deliver(ResponseEnvelope(callID: callID, response: response, endOfStream: false))
    }

    /// Ends a stream: OK, or with the error.
    func finish(_ error: WaterError?) {
        deliver(
            error.map { ResponseEnvelope(callID: callID, error: $0) }
                ?? ResponseEnvelope(callID: callID, status: WaterV1.Status(code: .ok), payload: [], endOfStream: true))
    }
}

typealias ResponseEnvelope = WaterV1.ResponseEnvelope

/// One method's handler and who may call it.
struct MethodHandler: Sendable {
    let access: Access
    let handle: @Sendable (IncomingCall, CallContext, Responder) -> Void
}

/// The handler of every method, by full name. A method of the API with no handler answers
/// UNIMPLEMENTED.
struct Router: Sendable {
    private(set) var handlers: [String: MethodHandler] = [:]

    func handler(for method: MethodDescriptor) -> MethodHandler? {
        handlers[method.fullName]
    }

    /// A unary method whose handler answers later (after a durable write, a password hash).
    mutating func unary<Request: UnaryRPCRequest>(
        _ type: Request.Type, _ access: Access,
        _ body:
            @escaping @Sendable (
                Request, CallContext, @escaping @Sendable (Result<Request.Response, WaterError>) -> Void
            ) -> Void
    ) {
        handlers[Request.method.fullName] = MethodHandler(access: access) { call, context, responder in
            switch Result(catching: { () throws(WaterError) in try call.request(as: Request.self) }) {
            case .success(let request): body(request, context) { responder.reply($0) }
            case .failure(let error): responder.reply(Result<Request.Response, WaterError>.failure(error))
            }
        }
    }

    /// A unary method answered at once (reads).
    mutating func immediate<Request: UnaryRPCRequest>(
        _ type: Request.Type, _ access: Access,
        _ body: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Request.Response
    ) {
        unary(type, access) { request, context, reply in
            reply(Result { () throws(WaterError) in try body(request, context) })
        }
    }

    /// A method that answers with a stream.
    mutating func stream<Request: ServerStreamingRPCRequest>(
        _ type: Request.Type, _ access: Access,
        _ body: @escaping @Sendable (Request, CallContext, Responder) -> Void
    ) {
        handlers[Request.method.fullName] = MethodHandler(access: access) { call, context, responder in
            switch Result(catching: { () throws(WaterError) in try call.request(as: Request.self) }) {
            case .success(let request): body(request, context, responder)
            case .failure(let error): responder.finish(error)
            }
        }
    }
}
