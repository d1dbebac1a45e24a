/// Whether a connection's streams may produce, from its unsent bytes (framed replies and
/// ciphertext not yet taken by the socket), with the hysteresis of SwiftNIO's write
/// watermarks: writable until the unsent bytes exceed the high mark, then not until they have
/// drained to the low mark, so a stream neither floods the buffer nor flaps at one boundary.
/// And when a peer that has stopped reading has been stuck long enough to be closed, as Redis's
/// soft client-output-buffer-limit: over the high mark, with the socket taking nothing, for
/// the stall timeout.
///
/// Pure: ``Connection`` tells it each new count and carries out what it says; the tests feed
/// it counts event by event.
struct OutputWatermarks: Sendable {
    struct Limits: Sendable {
        /// Streams resume once the unsent bytes are at most this.
        var lowMark = 64 * 1024
        /// Streams pause once the unsent bytes are over this.
        var highMark = 256 * 1024
        /// Nanoseconds a connection may stay over the high mark with the socket taking nothing
        /// before it is closed: the peer has read nothing for that long while its replies wait.
        var stallTimeout: UInt64 = 60 * 1_000_000_000
    }

    enum Change: Equatable {
        case becameUnwritable
        case becameWritable
    }

    let limits: Limits
    private(set) var isWritable = true
    /// Since when the unsent bytes have stayed over the high mark with none of them sent.
    private(set) var stalledSince: UInt64?
    private var unsent = 0

    init(limits: Limits = Limits()) {
        precondition(limits.lowMark <= limits.highMark, "the low mark is above the high mark")
        self.limits = limits
    }

    /// The connection's unsent bytes are now `bytes`: replies were queued (more), or the socket
    /// took some (fewer). `now` is read only when a stall starts or moves.
    mutating func unsentChanged(to bytes: Int, now: @autoclosure () -> UInt64) -> Change? {
        let sentSome = bytes < unsent
        unsent = bytes
        if bytes > limits.highMark {
            if stalledSince == nil || sentSome { stalledSince = now() }
        } else {
            stalledSince = nil
        }
        if isWritable, bytes > limits.highMark {
            isWritable = false
            return .becameUnwritable
        }
        if !isWritable, bytes <= limits.lowMark {
            isWritable = true
            return .becameWritable
        }
        return nil
    }

    /// When the connection is to be closed if it is still stalled then.
    var stallDeadline: UInt64? { stalledSince.map { $0 + limits.stallTimeout } }

    /// Whether the connection has been stalled for the whole stall timeout by `now`.
    func isStalled(now: UInt64) -> Bool {
        stallDeadline.map { now >= $0 } ?? false
    }
}
