/// How a connection's streams keep to the pace its peer reads at: a stream makes its next
/// message only while the connection's unsent bytes are under the watermarks
/// (``OutputWatermarks``); the streams paused meanwhile are kept here, in the order they paused,
/// and resumed once the bytes have drained to the low mark. A value with no socket or clock of
/// its own: owned by its ``Connection``, which tells it each new count and each stream message
/// and runs what it hands back; the tests feed it counts and messages event by event.
struct StreamPacing {
    /// A stream the watermarks paused: its call, and what makes its next message.
    struct PausedStream {
        let callID: UInt64
        let resume: @Sendable () -> Void
    }

    /// What to do with a stream after it queued a message.
    enum Next: Equatable {
        /// Make the next message now: the connection is writable.
        case produce
        /// It is paused until the peer reads; `isFirst` on the connection's first pause (a line
        /// for the log: a slow reader pauses often, and the log stays readable).
        case paused(isFirst: Bool)
    }

    /// Whether the streams may produce, and whether a peer that stopped reading is stuck.
    private(set) var watermarks: OutputWatermarks
    private var paused: [PausedStream] = []
    private var hasPaused = false

    init(limits: OutputWatermarks.Limits = OutputWatermarks.Limits()) {
        watermarks = OutputWatermarks(limits: limits)
    }

    /// The streams waiting for the peer to read.
    var pausedCalls: [UInt64] { paused.map(\.callID) }

    /// The connection's unsent bytes are now `bytes`. Returns the paused streams to resume, in
    /// the order they paused, when the connection has just become writable again (none else;
    /// the caller skips those whose call has ended). `now` is read only when a stall starts.
    mutating func unsentChanged(to bytes: Int, now: @autoclosure () -> UInt64) -> [PausedStream] {
        guard watermarks.unsentChanged(to: bytes, now: now()) == .becameWritable, !paused.isEmpty else { return [] }
        defer { paused = [] }
        return paused
    }

    /// A stream of `callID` queued a message (the count is told first): whether `next` runs now,
    /// or is kept until the connection is writable again.
    mutating func messageQueued(_ callID: UInt64, next: @escaping @Sendable () -> Void) -> Next {
        guard !watermarks.isWritable else { return .produce }
        paused.append(PausedStream(callID: callID, resume: next))
        defer { hasPaused = true }
        return .paused(isFirst: !hasPaused)
    }

    /// The call ended (cancelled, failed): its stream is not resumed, and what it holds goes now.
    mutating func callEnded(_ callID: UInt64) {
        paused.removeAll { $0.callID == callID }
    }

    /// The connection closed: no stream resumes.
    mutating func closed() {
        paused.removeAll()
    }

    /// When the connection is to be closed if the peer has read nothing by then.
    var stallDeadline: UInt64? { watermarks.stallDeadline }

    /// Whether the peer has read nothing for the whole stall timeout by `now`.
    func isStalled(now: UInt64) -> Bool {
        watermarks.isStalled(now: now)
    }
}
