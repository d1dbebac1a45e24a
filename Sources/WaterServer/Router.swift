import Dispatch
import WaterCodec
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

/// How a unary handler answers once its work is done (after a password hash).
typealias Reply<Response: Sendable> = @Sendable (Result<Response, WaterError>) -> Void

/// How a handler that answers later answers a call: exactly one ``reply(_:)`` for a unary
/// call; any number of ``yield(_:whenWritable:)`` and then one ``finish(_:)`` for a stream.
/// The connection counts the call as finished at the final reply.
struct Responder: Sendable {
    let callID: UInt64
    let method: String
    /// Sends a reply; a failed one's error comes too, for the log's cause.
    let deliver: @Sendable (ResponseEnvelope, _ failure: WaterError?) -> Void
    /// Queues a stream's message framed beforehand, then runs the closure once the connection
    /// has room for more (see ``yield(_:whenWritable:)``).
    let deliverFramed: @Sendable ([UInt8], _ next: @escaping @Sendable () -> Void) -> Void
    /// How the connection frames replies (its frame limit, compression).
    let writer: FrameWriter
    /// Registers what to do when the client cancels the call or the connection closes.
    let onCancel: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Sends a unary call's one reply, framed beforehand (``framedReply(_:)``), and ends the call.
    var deliverFramedReply: @Sendable ([UInt8]) -> Void = { _ in
        preconditionFailure("this responder's replies are not framed beforehand")
    }
    /// How the connection ends the call from the server's side (``end(_:)``); nil: as
    /// ``finish(_:)`` does.
    var ending: (@Sendable (WaterError) -> Void)? = nil

    func reply<Response: ProtoMessage>(_ result: Result<Response, WaterError>) {
        switch result {
        case .success(let response): deliver(ResponseEnvelope(callID: callID, response: response), nil)
        case .failure(let error): deliver(ResponseEnvelope(callID: callID, error: error), error)
        }
    }

    func reply<Response: ProtoMessage>(encoded response: Encoded<Response>) {
        deliver(ResponseEnvelope(callID: callID, encoded: response), nil)
    }

    /// A unary call's reply as a frame, encoded, framed and compressed here, on the caller's
    /// thread (a reply over the frame limit becomes RESOURCE_EXHAUSTED), for
    /// ``deliverFramedReply``: a large reply costs the event loop a copy only.
    func framedReply<Response: WireMessage>(_ response: Response) -> [UInt8] {
        var framed: [UInt8] = []
        writer.appendReply(callID: callID, response: response, to: &framed, arena: WireArena(initialBlockSize: 4096))
        return framed
    }

    /// Sends a stream's next message and calls `next` once the connection has room for more:
    /// at once while its unsent bytes are under the high mark, else once the peer has read them
    /// down to the low mark (``OutputWatermarks``); never if the call ends first. A stream
    /// makes its next message only in `next`, so one whose peer does not read stops producing.
    /// The message is encoded, framed and compressed here, on the caller's thread: a large one
    /// costs the event loop a copy only.
    /// A message too large to send ends the stream from the server's side (``end(_:)``, with
    /// RESOURCE_EXHAUSTED): what its handler registered with ``onCancel`` runs, so whoever
    /// keeps the stream (the live boards, the session's streams) lets go of it, as at any end.
    func yield<Response: ProtoMessage>(_ response: Response, whenWritable next: @escaping @Sendable () -> Void) {
        let envelope = ResponseEnvelope(callID: callID, response: response, endOfStream: false)
        // The envelope around the payload takes a few bytes: call id, field tags, lengths.
        guard envelope.payload.count + 32 <= writer.maximumPayloadLength else {
            return end(WaterError(.resourceExhausted, "the reply is too large to send"))
        }
        var framed: [UInt8] = []
        writer.appendReply(envelope, to: &framed, arena: WireArena(initialBlockSize: 1024))
        deliverFramed(framed, next)
    }

    /// Ends the call from the server's side, whatever its handler is doing (a stream whose
    /// session ended): what the handler registered with ``onCancel`` runs, and the peer is told
    /// `error`. The connection's state machine decides; a call already over stays as it was.
    func end(_ error: WaterError) {
        guard let ending else { return finish(error) }
        ending(error)
    }

    /// Ends a stream: OK, or with the error.
    func finish(_ error: WaterError?) {
        deliver(
            error.map { ResponseEnvelope(callID: callID, error: $0) }
                ?? ResponseEnvelope(callID: callID, status: WaterV1.Status(code: .ok), payload: [], endOfStream: true),
            error)
    }
}

typealias ResponseEnvelope = WaterV1.ResponseEnvelope

/// A call as an on-loop handler gets it: the envelope where it was decoded, and the arena and
/// limits its request is decoded with. Valid only while the handler runs.
struct LoopCall {
    let envelope: RequestEnvelopeView
    let arena: WireArena
    let limits: DecodeLimits
}

/// Where an on-loop handler writes its one reply: the connection's buffer of this turn's
/// replies, framed by its writer. It sends nothing: the connection writes the turn's replies
/// after the turn's commit.
///
/// Each reply is built and packed in `arena` (the loop's reply arena, shared by its
/// connections), and the arena is reset as soon as the frame is in ``output``: nothing of a
/// reply outlives its framing, so a million replies keep what one does.
struct ReplySink {
    var output: [UInt8] = []
    let writer: FrameWriter
    let arena: WireArena
    /// The refusal the last reply carried, for the log.
    private(set) var refusal: WaterError?

    init(writer: FrameWriter, arena: WireArena) {
        self.writer = writer
        self.arena = arena
    }

    mutating func reply<Response: WireMessage>(_ callID: UInt64, _ response: Response) {
        refusal = nil
        framing { writer, output, arena in
            writer.appendReply(callID: callID, response: response, to: &output, arena: arena)
        }
    }

    mutating func reply<Response: ProtoMessage>(_ callID: UInt64, encoded response: Encoded<Response>) {
        refusal = nil
        framing { writer, output, arena in
            response.bytes.withUnsafeBytes { payload in
                writer.appendReply(callID: callID, payload: payload, endOfStream: true, to: &output, arena: arena)
            }
        }
    }

    mutating func reply(_ callID: UInt64, error: WaterError) {
        refusal = error
        framing { writer, output, arena in writer.appendReply(callID: callID, error: error, to: &output, arena: arena) }
    }

    /// A reply framed elsewhere (``Responder/framedReply(_:)``).
    mutating func reply(framed: [UInt8]) {
        refusal = nil
        output += framed
    }

    /// A reply a handler that answers later delivered, or the connection made.
    mutating func reply(_ envelope: ResponseEnvelope) {
        refusal = nil
        framing { writer, output, arena in writer.appendReply(envelope, to: &output, arena: arena) }
    }

    /// Frames one reply onto ``output``, then resets the arena it was built in.
    private mutating func framing(_ append: (FrameWriter, inout [UInt8], WireArena) -> Void) {
        defer { arena.reset() }
        append(writer, &output, arena)
    }
}

/// One method's handler and who may call it.
struct MethodHandler: Sendable {
    enum Kind: Sendable {
        /// Runs on the event loop and answers at once into the sink: reads, and writes through
        /// ``ArchiveAccess``'s returning commits (the loop answers after its turn's commit). No
        /// closure and no copy of the envelope is made per call.
        case onLoop(@Sendable (LoopCall, CallContext, inout ReplySink) -> Void)
        /// Answers later, from anywhere, through a ``Responder``: password work, streams, and
        /// what is too large to do on the loop.
        case later(@Sendable (IncomingCall, CallContext, Responder) -> Void)
    }

    let access: Access
    let kind: Kind
}

/// A group of handlers (one `service` of `proto/`) with the parts of the server it needs,
/// handed to it when it is made.
protocol Service: Sendable {
    /// Adds a handler for each of the service's methods.
    func register(in router: inout Router)
}

/// The handler of every method, by the method's place in ``MethodTable``. A method of the API
/// with no handler answers UNIMPLEMENTED. Handlers are typed: each gets its decoded request and
/// the call's context; a refusal is thrown (before anything is written) and becomes the call's
/// status.
struct Router: Sendable {
    private(set) var handlers: [MethodHandler?] = Array(repeating: nil, count: MethodTable.shared.methods.count)

    init(_ services: [any Service] = []) {
        for service in services { service.register(in: &self) }
    }

    func handler(for method: MethodDescriptor) -> MethodHandler? {
        handlers[method.index]
    }

    private mutating func add(_ method: MethodDescriptor, _ handler: MethodHandler) {
        precondition(handlers[method.index] == nil, "\(method) has two handlers")
        handlers[method.index] = handler
    }

    /// A unary method answered on the loop: a read, or a write whose commit the loop's turn
    /// makes durable before the reply leaves.
    mutating func onLoop<Request: UnaryRPCRequest & WireMessage>(
        _ access: Access, _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Request.Response
    ) where Request.Response: WireMessage {
        onLoop(access, handle) { sink, callID, response in sink.reply(callID, response) }
    }

    /// A unary method answered on the loop with a reply encoded beforehand, one that many calls
    /// share (see ``Encoded``).
    mutating func onLoop<Request: UnaryRPCRequest & WireMessage>(
        _ access: Access,
        _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Encoded<Request.Response>
    ) {
        onLoop(access, handle) { sink, callID, encoded in sink.reply(callID, encoded: encoded) }
    }

    /// Decodes the request where the loop decoded its envelope, runs `handle`, and puts what it
    /// returns (by `send`) or its refusal into the turn's replies.
    private mutating func onLoop<Request: UnaryRPCRequest & WireMessage, Answer>(
        _ access: Access, _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Answer,
        send: @escaping @Sendable (inout ReplySink, UInt64, Answer) -> Void
    ) {
        add(
            Request.method,
            MethodHandler(
                access: access,
                kind: .onLoop { call, context, sink in
                    let callID = call.envelope.callID
                    do throws(WaterError) {
                        let request = try call.envelope.request(
                            as: Request.self, arena: call.arena, limits: call.limits)
                        send(&sink, callID, try handle(request, context))
                    } catch {
                        sink.reply(callID, error: error)
                    }
                }))
    }

    /// A unary method whose handler answers later, through `reply` (after a password hash).
    /// - Parameter queue: nil: the call runs on the loop. Else where it runs instead, for a
    ///   request that may be large (an Import: up to a full frame, 131 072 fields): the loop only
    ///   hands the call, copied out of its envelope, to `queue`, where the request is checked
    ///   under its limits (one pass over its bytes, before any work per field), decoded and
    ///   handled. Every other connection is served meanwhile; `queue` (serial) takes one such
    ///   call at a time, each bounded by the frame and field limits.
    mutating func later<Request: UnaryRPCRequest>(
        _ access: Access, on queue: DispatchQueue?,
        _ handle:
            @escaping @Sendable (Request, CallContext, @escaping Reply<Request.Response>) throws(WaterError) -> Void
    ) {
        add(
            Request.method,
            MethodHandler(
                access: access,
                kind: .later { call, context, responder in
                    guard let queue else { return Self.run(call, context, responder, handle) }
                    queue.async { Self.run(call, context, responder, handle) }
                }))
    }

    /// Decodes a unary call's request and runs its handler, which answers through `responder`;
    /// a refusal of either is the call's reply.
    private static func run<Request: UnaryRPCRequest>(
        _ call: IncomingCall, _ context: CallContext, _ responder: Responder,
        _ handle: (Request, CallContext, @escaping Reply<Request.Response>) throws(WaterError) -> Void
    ) {
        let reply: Reply<Request.Response> = { responder.reply($0) }
        do throws(WaterError) {
            try handle(try call.request(as: Request.self), context, reply)
        } catch {
            reply(.failure(error))
        }
    }

    /// A unary read too costly for the loop: the loop hands the call, copied out of its
    /// envelope, to `pool`, which runs it in its member's turn (``ReadPool``); a member with too
    /// many waiting is refused at once.
    ///
    /// The request is decoded and handled, and its reply encoded, framed and compressed, on the
    /// pool; the loop only copies the frame into the connection's output, once every write the
    /// read could have seen is durable. When one of them was not stored, the read (its reply or
    /// its refusal alike: either may tell of that write) is refused as a loop's reply would be.
    mutating func offLoop<Request: UnaryRPCRequest>(
        _ access: Access, pool: ReadPool,
        _ handle: @escaping @Sendable (Request, CallContext) throws(WaterError) -> Request.Response
    ) where Request.Response: WireMessage {
        add(
            Request.method,
            MethodHandler(
                access: access,
                kind: .later { call, context, responder in
                    let read: ReadPool.Read = {
                        do throws(WaterError) {
                            let framed = responder.framedReply(try handle(try call.request(as: Request.self), context))
                            return { stored in
                                guard stored else { return responder.reply(Self.notStored(Request.self)) }
                                responder.deliverFramedReply(framed)
                            }
                        } catch {
                            return { stored in responder.reply(stored ? .failure(error) : Self.notStored(Request.self))
                            }
                        }
                    }
                    // Off the loop only once a token said who calls: a member's turn.
                    guard let member = context.caller?.account.id else { return pool.runHere(read) }
                    if !pool.submit(from: member, read) {
                        responder.reply(Result<Request.Response, WaterError>.failure(ReadPool.refusal))
                    }
                }))
    }

    /// A read's refusal when it may have shown a write that was not stored.
    private static func notStored<Request: UnaryRPCRequest>(_: Request.Type) -> Result<Request.Response, WaterError> {
        .failure(ReplyQueue.refusal)
    }

    /// A method that answers with a stream.
    mutating func stream<Request: ServerStreamingRPCRequest>(
        _ access: Access,
        _ handle: @escaping @Sendable (Request, CallContext, Responder) throws(WaterError) -> Void
    ) {
        add(
            Request.method,
            MethodHandler(
                access: access,
                kind: .later { call, context, responder in
                    do throws(WaterError) {
                        try handle(try call.request(as: Request.self), context, responder)
                    } catch {
                        responder.finish(error)
                    }
                }))
    }
}
