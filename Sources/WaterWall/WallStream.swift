import CWaterWall
import Dispatch
import WaterSync

/// One page's live stream (Server-Sent Events), read by MHD on the connection's own thread:
/// it opens with the board now (a durable read), then each read waits for a newer board than
/// the last one sent (``WallHub/next(after:timeout:)``), a second at a time, and sends a comment
/// every ``WallSettings/keepAliveSeconds`` so a live one is not timed out. MHD asks for more only
/// once the socket took what it had: a slow reader gets the latest board when it catches up,
/// never a queue of them. The stream ends within a second when its link is revoked, its peer
/// has gone (MHD does not watch the socket while it waits here), or the wall stops.
///
/// Owned by MHD's connection thread (``pending`` and ``version`` are touched by its reads only;
/// the lock is for the compiler).
final class WallStream: Sendable {
    private let hub: WallHub
    private let counters: WallCounters
    private let stillOpen: @Sendable () -> Bool
    private let peerGone: @Sendable () -> Bool
    private let cursor = Locked<Cursor>(Cursor())

    private struct Cursor {
        /// The hub's number of the last board sent; nil before the first.
        var version: Int?
        var pending: [UInt8] = []
        var quietSeconds = 0
    }

    init(
        counters: WallCounters, hub: WallHub, stillOpen: @escaping @Sendable () -> Bool,
        peerGone: @escaping @Sendable () -> Bool
    ) {
        self.counters = counters
        counters.streamOpened()
        self.hub = hub
        self.stillOpen = stillOpen
        self.peerGone = peerGone
    }

    /// Up to `capacity` bytes of the stream into `buffer`; -1 to end it.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        var cursor = cursor.withLock { $0 }
        while cursor.pending.isEmpty {
            guard stillOpen(), !peerGone() else { return -1 }
            guard let version = cursor.version else {
                let (version, fragment) = hub.opening()
                cursor.version = version
                cursor.pending = Self.event(fragment)
                counters.boardSent()
                break
            }
            guard let (newest, fragment) = hub.next(after: version, timeout: .seconds(1)) else { return -1 }
            if newest != version {
                cursor.version = newest
                cursor.quietSeconds = 0
                if !fragment.isEmpty {
                    cursor.pending = Self.event(fragment)
                    counters.boardSent()
                }
            } else {
                cursor.quietSeconds += 1
                if cursor.quietSeconds >= WallSettings.keepAliveSeconds {
                    cursor.quietSeconds = 0
                    cursor.pending = Array(": keep-alive\n\n".utf8)
                }
            }
        }
        let count = min(capacity, cursor.pending.count)
        cursor.pending.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
        }
        cursor.pending.removeFirst(count)
        self.cursor.withLock { [cursor] in $0 = cursor }
        return count
    }

    deinit {
        counters.streamClosed()
    }

    /// A `board` event: each line of the fragment as a `data:` line.
    static func event(_ fragment: String) -> [UInt8] {
        var text = "event: board\n"
        for line in fragment.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            text += "data: \(line)\n"
        }
        return Array((text + "\n").utf8)
    }

    static let reader: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        guard let context, let buffer else { return -1 }
        let stream = Unmanaged<WallStream>.fromOpaque(context).takeUnretainedValue()
        return stream.read(into: buffer, capacity: capacity)
    }

    static let release: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<WallStream>.fromOpaque(context).release()
    }
}
