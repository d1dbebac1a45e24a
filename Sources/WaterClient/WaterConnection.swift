import Glibc
import WaterProtocol
import WaterTransport

/// A connection to `water-server`, used from one thread at a time: each call sends its frame
/// and waits for the reply. The handshake happens in ``init(configuration:)``.
public final class WaterConnection {
    public let configuration: ClientConfiguration
    /// What the server said in the handshake.
    public private(set) var server = WaterV1.HandshakeResponse()
    private let socket: Socket
    private var decoder: FrameDecoder
    private let encoder: FrameEncoder
    private var nextCallID: UInt64 = 1
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects and shakes hands.
    /// - Throws: UNAVAILABLE when the server cannot be reached, FAILED_PRECONDITION when it
    ///   does not speak this protocol version.
    public init(configuration: ClientConfiguration) throws(WaterError) {
        self.configuration = configuration
        do {
            socket = try Socket.connect(to: configuration.server)
            try socket.setReceiveTimeout(milliseconds: configuration.replyTimeoutMilliseconds)
        } catch {
            throw WaterError(
                .unavailable,
                "cannot reach the server at \(configuration.server): \(error); "
                    + "is water-server running there? (set --server or \(ClientConfiguration.serverEnvironmentVariable))"
            )
        }
        decoder = FrameDecoder(maximumPayloadLength: configuration.maximumPayloadLength)
        encoder = FrameEncoder(maximumPayloadLength: configuration.maximumPayloadLength)
        // A failed handshake needs no close here: every property is set, so deinit runs and
        // closes the socket. Closing it here too closed whatever had reused the number since
        // (another connection of the process: a test saw "read: Bad file descriptor").
        server = try call(
            WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version, clientName: configuration.clientName))
    }

    deinit {
        socket.close()
    }

    /// Calls a unary method and returns its response.
    /// - Throws: the call's ``WaterError``; UNAVAILABLE when the connection fails.
    public func call<Request: UnaryRPCRequest>(_ request: Request, token: [UInt8] = []) throws(WaterError)
        -> Request.Response
    {
        let callID = try send(request, token: token)
        let reply = try nextReply(for: callID)
        return try reply.response(as: Request.Response.self)
    }

    /// Calls a streaming method; `onMessage` gets each message and returns whether to go on.
    /// Returning false cancels the call. Returns when the stream ends.
    public func stream<Request: ServerStreamingRPCRequest>(
        _ request: Request, token: [UInt8] = [], onMessage: (Request.Response) -> Bool
    ) throws(WaterError) {
        let callID = try send(request, token: token)
        var cancelled = false
        while true {
            let reply = try nextReply(for: callID, waitingForever: true)
            if reply.endOfStream {
                if cancelled, reply.statusCode == .cancelled { return }
                if let status = reply.status, status.code != .ok { throw WaterError(status) }
                return
            }
            guard !cancelled else { continue }
            if !onMessage(try reply.response(as: Request.Response.self)) {
                cancelled = true
                try write(WaterV1.RequestEnvelope(callID: callID, cancel: true).serializedBytes())
            }
        }
    }

    private func send<Request: RPCRequest>(_ request: Request, token: [UInt8]) throws(WaterError) -> UInt64 {
        let payload = request.serializedBytes()
        // protobuf-c takes strings as C strings: a U+0000 would cut one short on the way out.
        // The protocol refuses such strings; say so here rather than send a different request.
        guard (try? Request(serializedBytes: payload)) == request else {
            throw WaterError(
                .invalidArgument,
                "a text in this request contains U+0000 (a NUL character), which the protocol does not allow")
        }
        let callID = nextCallID
        nextCallID += 1
        try write(
            WaterV1.RequestEnvelope(callID: callID, method: Request.method.fullName, authToken: token, payload: payload)
                .serializedBytes())
        return callID
    }

    private func write(_ payload: [UInt8]) throws(WaterError) {
        let frame: [UInt8]
        do {
            frame = try encoder.encode(payload)
        } catch {
            throw WaterError(.invalidArgument, "the request is too large to send (\(error))")
        }
        var done = 0
        while done < frame.count {
            let result = frame.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[done...])) }
            }
            switch result {
            case .success(let count): done += count
            case .failure(let error): throw lost(error.description)
            }
        }
    }

    /// The next reply for `callID`; a connection-level status ends the connection with its error.
    private func nextReply(for callID: UInt64, waitingForever: Bool = false) throws(WaterError)
        -> WaterV1.ResponseEnvelope
    {
        while true {
            let frame: Frame?
            do {
                frame = try decoder.nextFrame()
            } catch {
                throw WaterError(.internal, "the server sent a bad frame: \(error)")
            }
            if let frame {
                let envelope = try WaterV1.ResponseEnvelope(serializedBytes: frame.payload)
                if envelope.callID == callID { return envelope }
                if envelope.callID == WireProtocol.connectionCallID, let status = envelope.status {
                    throw WaterError(status)
                }
                continue
            }
            let read = readBuffer.withUnsafeMutableBytes { raw in
                Result { () throws(SocketError) in try socket.read(into: raw) }
            }
            switch read {
            case .success(nil):
                if waitingForever { continue }
                throw WaterError(.deadlineExceeded, "the server did not answer in time")
            case .success(0): throw lost("the server closed the connection")
            case .success(let count?): decoder.append(readBuffer[0..<count])
            case .failure(let error) where error.errno == EAGAIN || error.errno == EWOULDBLOCK:
                if waitingForever { continue }
                throw WaterError(
                    .deadlineExceeded,
                    "the server did not answer within \(configuration.replyTimeoutMilliseconds / 1000) s")
            case .failure(let error): throw lost(error.description)
            }
        }
    }

    private func lost(_ reason: String) -> WaterError {
        WaterError(.unavailable, "lost the connection to \(configuration.server): \(reason)")
    }
}
