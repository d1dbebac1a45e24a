import Glibc
import WaterProtocol
import WaterTLS
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
    /// Whether a call on this connection has proved who it is (a Login, or a call with a token
    /// that worked): until then the server takes frames of 4 KiB at most.
    private var hasLoggedIn = false
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The TLS session under the frames; nil in plaintext.
    private let tls: TLSSession?
    /// The fingerprint of the certificate the server presented (nil in plaintext).
    public let serverFingerprint: Fingerprint?
    /// The cipher suite agreed (nil in plaintext).
    public let cipher: String?

    /// Connects and shakes hands.
    /// - Throws: UNAVAILABLE when the server cannot be reached, FAILED_PRECONDITION when it
    ///   does not speak this protocol version, PERMISSION_DENIED for plaintext to a server that
    ///   is not on this machine (nothing is sent).
    public init(configuration: ClientConfiguration) throws(WaterError) {
        self.configuration = configuration
        let address = try Self.address(configuration)
        do {
            socket = try Socket.connect(to: address)
            try socket.setReceiveTimeout(milliseconds: configuration.replyTimeoutMilliseconds)
        } catch {
            throw Self.unreachable(configuration, error)
        }
        decoder = FrameDecoder(maximumPayloadLength: configuration.maximumPayloadLength)
        encoder = FrameEncoder(maximumPayloadLength: configuration.maximumPayloadLength)
        if configuration.security == .plaintext {
            (tls, serverFingerprint, cipher) = (nil, nil, nil)
        } else {
            let session: TLSSession
            do {
                session = try Self.handshakeTLS(configuration, on: socket)
            } catch {
                // Not every property is set yet, so deinit will not run: close here, once.
                socket.close()
                throw error
            }
            (tls, serverFingerprint, cipher) = (session, session.peerFingerprint, session.cipher)
            // From here every property is set: a throw runs deinit, which closes the socket. A
            // second close here would close whatever had reused the number since.
            // The same refusal as a certificate not trusted when asked (PERMISSION_DENIED, 77).
            if case .pinned(let expected?) = configuration.security, serverFingerprint != expected {
                let presented = serverFingerprint.map(\.description) ?? "(none)"
                let server = configuration.server
                let message =
                    switch configuration.pinOrigin {
                    case .saved:
                        "the server at \(server) presents the certificate \(presented), not \(expected), the one "
                            + "this computer pinned for it. Someone may be in between. Check on the server with "
                            + "water-server status; if its certificate changed on purpose, log in again with "
                            + "--fingerprint and the new one."
                    case .given:
                        "the server at \(server) presents the certificate \(presented), not \(expected), the one "
                            + "--fingerprint gave; nothing was sent. Check the fingerprint against what "
                            + "water-server status shows on the server."
                    }
                throw WaterError(.permissionDenied, message)
            }
        }
        // A failed handshake needs no close here: every property is set, so deinit runs and
        // closes the socket. Closing it here too closed whatever had reused the number since
        // (another connection of the process: a test saw "read: Bad file descriptor").
        do {
            server = try call(
                WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version, clientName: configuration.clientName))
        } catch {
            // A TLS server hangs up on frames in the clear: say so, rather than "unreachable"
            // (a write would wait in the outbox for a server that is there all along).
            if configuration.security == .plaintext, error.code == .unavailable, Self.speaksTLS(configuration, address)
            {
                throw WaterError(
                    .failedPrecondition,
                    "the server at \(configuration.server) speaks TLS, not plaintext: leave out --plaintext (and "
                        + "WATER_PLAINTEXT=1); nothing was sent or saved")
            }
            // Something answered, but not in frames and envelopes: say so, not "bad frame".
            guard error.code == .internal || error.code == .invalidArgument else { throw error }
            throw WaterError(
                .unavailable,
                "\(configuration.server) is not a water server: it answered the handshake with something else")
        }
    }

    deinit {
        socket.close()
    }

    /// Whether `address` completes a TLS handshake (its certificate not checked: nothing is sent
    /// over it), on a connection of its own.
    private static func speaksTLS(_ configuration: ClientConfiguration, _ address: HostPort) -> Bool {
        guard let probe = try? Socket.connect(to: address) else { return false }
        defer { probe.close() }
        guard (try? probe.setReceiveTimeout(milliseconds: configuration.replyTimeoutMilliseconds)) != nil else {
            return false
        }
        var tls = configuration
        tls.security = .pinned(nil)
        return (try? handshakeTLS(tls, on: probe)) != nil
    }

    private static func unreachable(_ configuration: ClientConfiguration, _ error: any Error) -> WaterError {
        WaterError(
            .unavailable,
            "cannot reach the server at \(configuration.server): \(error); "
                + "is water-server running there? (set --server or \(ClientConfiguration.serverEnvironmentVariable))")
    }

    /// Where to connect: the server as named, or in plaintext (a password and a token in the
    /// clear) the loopback address its name resolved to, every one of its addresses checked
    /// (``HostPort/loopbackAddress()``), and nothing at all when any is another machine's.
    private static func address(_ configuration: ClientConfiguration) throws(WaterError) -> HostPort {
        guard configuration.security == .plaintext else { return configuration.server }
        do {
            return try configuration.server.loopbackAddress()
        } catch let error as NotLoopback {
            throw WaterError(
                .permissionDenied,
                "plaintext (--plaintext, WATER_PLAINTEXT) is insecure and only reaches a server on this machine; "
                    + "\(error); nothing was sent")
        } catch {
            throw unreachable(configuration, error)
        }
    }

    /// The TLS handshake over a connected blocking socket, with the configuration's trust (the
    /// pin is checked by the caller). Public for tools that drive raw frames over TLS.
    public static func handshakeTLS(_ configuration: ClientConfiguration, on socket: Socket) throws(WaterError)
        -> TLSSession
    {
        func failed(_ reason: String) -> WaterError {
            WaterError(
                .unavailable,
                "no secure connection to \(configuration.server): \(reason) (is it a water-server with TLS? "
                    + "a server on this machine started with --plaintext needs --plaintext here too)")
        }
        do throws(TLSError) {
            let context = try TLSContexts.client(
                verifyingWithSystemCAs: configuration.security == .certificateAuthorities)
            let session = try TLSSession(context, isServer: false, host: configuration.server.host)
            if let saved = configuration.tlsSessionToResume { session.offer(savedSession: saved) }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while try session.handshake() == .inProgress {
                try Self.writeAll(session.takeOutput(), to: socket, server: configuration.server)
                let read = buffer.withUnsafeMutableBytes { raw in
                    Result { () throws(SocketError) in try socket.read(into: raw) }
                }
                switch read {
                case .success(let count?) where count > 0: try session.feed(Array(buffer[0..<count]))
                case .success(0): throw TLSError("the server closed the connection during the TLS handshake")
                case .success: throw TLSError("the server did not finish the TLS handshake in time")
                case .failure(let error): throw TLSError(error.description)
                }
            }
            try Self.writeAll(session.takeOutput(), to: socket, server: configuration.server)
            return session
        } catch {
            throw failed(error.description)
        }
    }

    private static func writeAll(_ bytes: [UInt8], to socket: Socket, server: HostPort) throws(TLSError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try socket.write(UnsafeRawBufferPointer(rebasing: raw[done...])) }
            }
            switch result {
            case .success(let count): done += count
            case .failure(let error): throw TLSError("writing to \(server): \(error)")
            }
        }
    }

    /// A TLS session to offer the next connection to this server for resumption, if the server
    /// gave one (it arrives with the first replies, so ask after a call).
    public var savedTLSSession: [UInt8]? { tls?.savedSession() }

    /// Whether this connection resumed an earlier TLS session.
    public var resumedTLSSession: Bool { tls?.resumed ?? false }

    /// Calls a unary method and returns its response.
    /// - Throws: the call's ``WaterError``; UNAVAILABLE when the connection fails.
    public func call<Request: UnaryRPCRequest>(_ request: Request, token: [UInt8] = []) throws(WaterError)
        -> Request.Response
    {
        let callID = try send(request, token: token)
        let reply = try nextReply(for: callID)
        let response = try reply.response(as: Request.Response.self)
        if !token.isEmpty || Request.self == WaterV1.LoginRequest.self { hasLoggedIn = true }
        return response
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
        // Until a connection has logged in, the server takes small frames only: a large
        // request (an import) on a new connection goes after a small call that proves the token.
        if !hasLoggedIn, !token.isEmpty, payload.count + 256 > WireProtocol.maximumPayloadLengthBeforeLogin {
            _ = try call(WaterV1.WhoAmIRequest(), token: token)
        }
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
        do throws(TLSError) {
            if let tls {
                try tls.write(frame)
                try Self.writeAll(tls.takeOutput(), to: socket, server: configuration.server)
            } else {
                try Self.writeAll(frame, to: socket, server: configuration.server)
            }
        } catch {
            throw lost(error.description)
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
                let envelope: WaterV1.ResponseEnvelope
                do {
                    envelope = try WaterV1.ResponseEnvelope(serializedBytes: frame.payload)
                } catch {
                    throw WaterError(error)
                }
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
            // Socket.read gives nil for EAGAIN, which is how SO_RCVTIMEO's timeout ends a read.
            case .success(nil):
                if waitingForever { continue }
                throw WaterError(
                    .deadlineExceeded,
                    "the server did not answer within \(configuration.replyTimeoutMilliseconds / 1000) s")
            case .success(0): throw lost("the server closed the connection")
            case .success(let count?): try received(count)
            case .failure(let error): throw lost(error.description)
            }
        }
    }

    /// `count` bytes arrived in the read buffer: into the frame decoder, through TLS if on.
    private func received(_ count: Int) throws(WaterError) {
        guard let tls else { return decoder.append(readBuffer[0..<count]) }
        let plaintext: [UInt8]?
        do throws(TLSError) {
            plaintext = try tls.decrypt(Array(readBuffer[0..<count]))
        } catch {
            throw lost(error.description)
        }
        guard let plaintext else { throw lost("the server ended the TLS session") }
        decoder.append(plaintext)
        // Whatever TLS has to say back (a key update), said now.
        do throws(TLSError) {
            try Self.writeAll(tls.takeOutput(), to: socket, server: configuration.server)
        } catch {
            throw lost(error.description)
        }
    }

    private func lost(_ reason: String) -> WaterError {
        WaterError(.unavailable, "lost the connection to \(configuration.server): \(reason)")
    }
}

/// The two client contexts, made once per process: OpenSSL loads the system's CAs when one is
/// made, which is worth doing once.
enum TLSContexts {
    private static let pinned = Result { () throws(TLSError) in try TLSContext.client(verifyingWithSystemCAs: false) }
    private static let authorities = Result { () throws(TLSError) in
        try TLSContext.client(verifyingWithSystemCAs: true)
    }

    static func client(verifyingWithSystemCAs: Bool) throws(TLSError) -> TLSContext {
        try (verifyingWithSystemCAs ? authorities : pinned).get()
    }
}
