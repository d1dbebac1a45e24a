import WaterProtocol

/// What a ``ConnectionStateMachine`` is set up with and what it answers with: its limits, the
/// actions it returns for its events, and what a frame pulled from it comes to.
extension ConnectionStateMachine {
    struct Limits: Sendable {
        var maximumPayloadLength: Int
        var maximumCallsInFlight: Int
        /// Nanoseconds a started frame may take to arrive.
        var frameDeadline: UInt64
        /// Nanoseconds a connection with nothing in flight may stay silent.
        var idleTimeout: UInt64
        /// Nanoseconds from the connection's start to the end of its handshake: a peer that
        /// opens a connection and says nothing holds a slot this long, not an idle timeout.
        var handshakeDeadline: UInt64
        /// The largest frame accepted until the peer has logged in (a Login, or a call with a
        /// valid token, on this connection): what a device with no account may make the server
        /// read and decode.
        var maximumPayloadLengthBeforeLogin = WireProtocol.maximumPayloadLengthBeforeLogin
        /// Frames taken from one connection in one loop turn: a burst waits for the next
        /// turns, between everyone else's.
        var framesPerTurn = 64
    }

    enum Action: Equatable {
        /// Send this reply. A final reply with a non-OK status is a failed call, to be logged.
        case send(WaterV1.ResponseEnvelope)
        /// Run this call (``bytesReceived(_:now:)`` only: ``nextFrame(arena:now:)`` hands calls
        /// over where they were decoded). Its replies come back through ``replyReady(_:now:)``.
        case dispatch(IncomingCall)
        /// The call ended without its handler finishing it (cancelled, connection closing):
        /// run what the handler registered for that.
        case cancelCall(UInt64)
        /// The handshake is answered: the connection is no longer one of its address's pending
        /// ones (``ConnectionAdmission``).
        case handshakeCompleted
        /// The peer logged in, the first time on this connection: it is no longer one of those
        /// that may be closed to make room (``ConnectionAdmission``).
        case loggedIn
        /// Stop reading and close once everything queued is written (``outputWritten(repliesLeft:)``
        /// says when). `reason` is a protocol error to log (its status was sent just before).
        case close(reason: WaterError?)
        /// Close without waiting: what the socket takes at once of what is queued is all the
        /// peer gets. A refused connection (over plaintext its status is queued just before),
        /// or a TLS handshake past its deadline, where no status can be said. `reason` is logged.
        case closeNow(reason: WaterError?)
    }

    /// What the next frame asks for.
    enum FrameOutcome {
        /// No complete frame yet.
        case needMoreBytes
        /// A call to run now: the handshake is done and the limits allow it. The envelope is
        /// valid until the next ``nextFrame(arena:now:)``.
        case call(RequestEnvelopeView, MethodDescriptor)
        /// What the frame came to otherwise: the handshake's reply, a refusal, a cancel, a
        /// protocol error.
        case actions([Action])
        /// This turn's frames are taken (``Limits/framesPerTurn``); the rest wait in the decoder
        /// until ``turnStarted(_:)`` says a new turn began.
        case budgetSpent
    }
}

extension FrameError {
    /// Whether the frame was refused for its size (on the wire, or inflated).
    var isTooLarge: Bool {
        switch self {
        case .frameTooLarge, .inflatedTooLarge, .compressionRatioExceeded: true
        default: false
        }
    }
}
