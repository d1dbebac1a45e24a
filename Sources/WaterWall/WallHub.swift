import Dispatch
import WaterServer
import WaterSync

/// The board the wall's live streams send, kept current from the server's durable change
/// notifier (``BoardFeed/onChange(_:)``, the one WatchBoard and Home Assistant hear): a change
/// only sets a flag on the loop; ``queue`` rebuilds at most ``coalescing`` later (once per
/// burst) and on every whole minute (a day's or week's turn), as a durable read.
///
/// Streams are paced as WatchBoard's watchers are: each takes the latest board when its
/// connection has taken the last one (MHD asks for more only then), never a queue of them.
///
/// ## Who owns what
/// - ``state`` (its lock): the newest fragment and its number, and each waiting stream's
///   semaphore; written by ``queue``, read by the streams' threads.
final class WallHub: Sendable {
    static let coalescing: DispatchTimeInterval = .milliseconds(200)

    private let feed: BoardFeed
    private let queue = DispatchQueue(label: "water.wall-hub", qos: .utility)
    private let minutes: SendableTimer
    private let isBuildPending = Locked(false)
    private let state = Locked<State>(State())

    private struct State {
        var version = 0
        var board: WallBoard?
        var fragment = ""
        var waiting: [Int: DispatchSemaphore] = [:]
        var nextWaiter = 0
        var isStopped = false
    }

    init(feed: BoardFeed) {
        self.feed = feed
        minutes = SendableTimer(source: DispatchSource.makeTimerSource(queue: queue))
    }

    func start() {
        feed.onChange { [weak self] in self?.changed() }
        queue.async { self.rebuild() }
        let untilNextMinute = 60_000 - Int(feed.now() % 60_000) + 100
        minutes.source.schedule(
            deadline: .now() + .milliseconds(untilNextMinute), repeating: .seconds(60), leeway: .milliseconds(500))
        minutes.source.setEventHandler { [weak self] in self?.rebuild() }
        minutes.source.activate()
    }

    /// Wakes every stream to end; no stream waits after it returns.
    func stop() {
        minutes.source.cancel()
        let waiting = state.withLock { state in
            state.isStopped = true
            return Array(state.waiting.values)
        }
        for semaphore in waiting { semaphore.signal() }
    }

    /// The board now, read durably; the last one built when a write is still being synced.
    func currentBoard() -> WallBoard {
        let fresh = feed.readDurably({ WallBoard.build(feed, now: feed.now()) }, orElse: {})
        return fresh ?? state.withLock { $0.board } ?? WallBoard(week: "", rows: [])
    }

    /// What a new stream opens with: the newest number, and the board now (a durable read; the
    /// last one built while a write is still being synced).
    func opening() -> (version: Int, fragment: String) {
        let version = state.withLock { $0.version }
        return (version, WallPage.fragment(currentBoard()))
    }

    /// Blocks the calling stream's thread (one of MHD's) until a board newer than `version`
    /// is built, or `timeout` passes, or the wall stops. Returns the newest number and
    /// fragment (the same `version` when none came), or nil once stopped.
    func next(after version: Int, timeout: DispatchTimeInterval) -> (version: Int, fragment: String)? {
        let semaphore = DispatchSemaphore(value: 0)
        let ready = state.withLock { state -> (Int, String)?? in
            if state.isStopped { return .some(nil) }
            if state.version != version { return (state.version, state.fragment) }
            state.nextWaiter += 1
            state.waiting[state.nextWaiter] = semaphore
            return nil
        }
        if let ready { return ready }
        _ = semaphore.wait(timeout: .now() + timeout)
        return state.withLock { state in
            state.waiting = state.waiting.filter { $0.value !== semaphore }
            return state.isStopped ? nil : (state.version, state.fragment)
        }
    }

    private func changed() {
        let schedule = isBuildPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + Self.coalescing) { [weak self] in self?.rebuild() }
    }

    /// On ``queue``: builds the board; when it differs, numbers it and wakes every stream.
    private func rebuild() {
        isBuildPending.withLock { $0 = false }
        guard
            let board = feed.readDurably(
                { WallBoard.build(feed, now: feed.now()) }, orElse: { [weak self] in self?.changed() })
        else { return }
        let waiting = state.withLock { state -> [DispatchSemaphore] in
            guard state.board != board else { return [] }
            state.board = board
            state.fragment = WallPage.fragment(board)
            state.version += 1
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for semaphore in waiting { semaphore.signal() }
    }
}
