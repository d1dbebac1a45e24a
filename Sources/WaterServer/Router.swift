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

/// How a unary handler answers once its work is done (after a durable write, a password hash).
typealias Reply<Response: Sendable> = @Sendable (Result<Response, WaterError>) -> Void

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

    func reply<Response: ProtoMessage>(encoded response: Encoded<Response>) {
        deliver(ResponseEnvelope(callID: callID, encoded: response))
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

/// A group of handlers (one `service` of `proto/`) with the parts of the server it needs,
/// handed to it when it is made.
protocol Service: Sendable {
    /// Adds a handler for each of the service's methods.
    func register(in router: inout Router)
}

/// The handler of every method, by full name. A method of the API with no handler answers
/// UNIMPLEMENTED. Handlers are typed: each gets its decoded request and the call's context;
/// a refusal is thrown (before anything is written) and becomes the call's status.
struct Router: Sendable {
    private(set) var handlers: [String: MethodHandler] = [:]

    init(_ services: [any Service] = []) {
        for service in services { service.register(in: &self) }
    }

    func handler(for method: MethodDescriptor) -> MethodHandler? {
        handlers[method.fullName]
    }

    /// A unary method whose handler answers later, through `reply`.
    mutating func unary<Request: UnaryRPCRequest>(
        _ access: Access,
        _ handle:
            @escaping @Sendable (Request, CallContext, @escaping Reply<Request.Response>) throws(WaterError) -> Void
    ) {
        handlers[Request.method.fullName] = MethodHandler(access: access) { call, context, responder in
            let reply: Reply<Request.Response> = { responder.reply($0) }
            do throws(WaterError) {
                try handle(try call.request(as: Request.self), context, reply)
            } catch {
                reply(.failure(error))
            }
        }
    }

    /// A unary method answered at once (reads).
    mutating func immediate<Request: UnaryRPCRequest>(
        _ access: Access,
        _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Request.Response
    ) {
        unary(access) { (request: Request, context, reply) throws(WaterError) in
            reply(.success(try handle(request, context)))
        }
    }

    /// A unary method answered at once with a reply encoded beforehand, one that many calls
    /// share (see ``Encoded``).
    mutating func immediate<Request: UnaryRPCRequest>(
        _ access: Access,
        _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Encoded<Request.Response>
    ) {
        handlers[Request.method.fullName] = MethodHandler(access: access) { call, context, responder in
            do throws(WaterError) {
                responder.reply(encoded: try handle(try call.request(as: Request.self), context))
            } catch {
                responder.reply(Result<Request.Response, WaterError>.failure(error))
            }
        }
    }

    /// A method that answers with a stream.
    mutating func stream<Request: ServerStreamingRPCRequest>(
        _ access: Access,
        _ handle: @escaping @Sendable (Request, CallContext, Responder) throws(WaterError) -> Void
    ) {
        handlers[Request.method.fullName] = MethodHandler(access: access) { call, context, responder in
            do throws(WaterError) {
                try handle(try call.request(as: Request.self), context, responder)
            } catch {
                responder.finish(error)
            }
        }
    }
}
