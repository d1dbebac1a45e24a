import Dispatch
import WaterCore
import WaterProtocol
import WaterStore
import WaterSync

/// The live boards of `WatchBoard` calls: each watcher gets the board when it starts and again
/// whenever the board it sees changes (it hears of every change that may show on a board from
/// ``BoardBuilder/onChange(_:)``, as Home Assistant does). A board the same as the watcher's
/// last (``BoardDigest``) is not sent. Changes that come in a burst are sent once.
/// A watcher whose connection has no room (its peer reads slower than boards change) is sent
/// nothing more until it has, and then the latest board once: what it missed is coalesced,
/// never queued. Each watcher gets its own view of the board (its member's privacy rules).
final class BoardHub: Sendable {
    /// Changes within this window are coalesced into one new board.
    static let coalescing: DispatchTimeInterval = .milliseconds(50)

    private struct Watcher {
        var order: BoardOrder
        /// The watching member's id: their username is looked up for each board (a rename
        /// while watching keeps their own row theirs).
        var viewer: UInt64
        var responder: Responder
        /// A board was sent and its connection has not said it has room for another yet.
        var isWaitingForRoom = true
        /// The board changed while it waited: the latest goes once there is room.
        var missedChange = false
        /// The last board sent to it: one the same is not sent again.
        var lastSent: BoardDigest?
    }

    private struct State {
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 1
        var isBroadcastPending = false
    }

    private let boards: BoardBuilder
    private let now: @Sendable () -> Int64
    private let state = Locked(State())
    /// Where boards are built and sent (one at a time).
    private let queue = DispatchQueue(label: "water.board-hub")

    init(boards: BoardBuilder, now: @escaping @Sendable () -> Int64) {
        self.boards = boards
        self.now = now
        boards.onChange { [weak self] in self?.changed() }
    }

    /// Starts sending boards to `responder` until the call is cancelled.
    func watch(order: BoardOrder, viewer: UInt64, responder: Responder) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.watchers[state.nextID] = Watcher(order: order, viewer: viewer, responder: responder)
            return state.nextID
        }
        responder.onCancel { [weak self] in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        queue.async { [self] in sendFirst(to: id, order, viewer, responder) }
    }

    /// The first board of watcher `id`, once it can be built of durable writes only.
    private func sendFirst(to id: UInt64, _ order: BoardOrder, _ viewer: UInt64, _ responder: Responder) {
        guard let first = durableBoard(order, viewer, orElse: { [self] in sendFirst(to: id, order, viewer, responder) })
        else { return }
        send(first, to: id, responder)
    }

    /// Something on a board changed, and is durable (or was rolled back): the board cache's
    /// listeners hear of a change only then, never before the reply to the write that made it.
    func changed() {
        let schedule = state.withLock { state -> Bool in
            guard !state.watchers.isEmpty, !state.isBroadcastPending else { return false }
            state.isBroadcastPending = true
            return true
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + Self.coalescing) { self.broadcast() }
    }

    private func broadcast() {
        let committer = boards.store.committer
        let read = committer.beginDurableRead()
        let ready = state.withLock { state in
            state.isBroadcastPending = false
            return state.watchers.filter { !$0.value.isWaitingForRoom }
        }
        let now = self.now()
        let week = boards.currentWeek(now: now)
        // The builder's cache makes each distinct board once.
        let built = ready.map {
            (id: $0.key, watcher: $0.value, board: board(week, $0.value.order, $0.value.viewer, now: now))
        }
        // A board that saw a write still being synced (which may yet be rolled back) is built
        // again once it is durable.
        guard committer.endDurableRead(read, orElse: { [weak self] in self?.changed() }) else { return }
        // Those waiting for room only note that they missed this one.
        state.withLock { state in
            for (id, watcher) in state.watchers where watcher.isWaitingForRoom {
                state.watchers[id]?.missedChange = true
            }
            for sent in built { state.watchers[sent.id]?.isWaitingForRoom = true }
        }
        for sent in built { send(sent.board, to: sent.id, sent.watcher.responder) }
    }

    /// The connection of watcher `id` has room again: the latest board if it missed one.
    private func roomAgain(_ id: UInt64) {
        let missed = state.withLock { state -> Watcher? in
            guard let watcher = state.watchers[id] else { return nil }
            guard watcher.missedChange else {
                state.watchers[id]?.isWaitingForRoom = false
                return nil
            }
            state.watchers[id]?.missedChange = false
            return watcher
        }
        guard let missed else { return }
        guard let board = durableBoard(missed.order, missed.viewer, orElse: { [weak self] in self?.roomAgain(id) })
        else {
            // Sent once the write it would have shown is durable.
            state.withLock { $0.watchers[id]?.missedChange = true }
            return
        }
        send(board, to: id, missed.responder)
    }

    /// The current board for `viewer`, when it shows durable writes only; nil, and `retry` runs
    /// once they are, when it saw one still being synced.
    private func durableBoard(_ order: BoardOrder, _ viewer: UInt64, orElse retry: @escaping @Sendable () -> Void)
        -> WaterV1.WatchBoardResponse?
    {
        let committer = boards.store.committer
        let read = committer.beginDurableRead()
        let now = self.now()
        let built = board(boards.currentWeek(now: now), order, viewer, now: now)
        return committer.endDurableRead(read, orElse: { [weak self] in self?.queue.async(execute: retry) })
            ? built : nil
    }

    /// Sends `board` to watcher `id` unless it is the same as the last it was sent; then the
    /// watcher has room still.
    private func send(_ board: WaterV1.WatchBoardResponse, to id: UInt64, _ responder: Responder) {
        let digest = BoardDigest(board.board ?? WaterV1.WeeklyBoard())
        let isNew = state.withLock { state -> Bool in
            guard state.watchers[id]?.lastSent != digest else {
                state.watchers[id]?.isWaitingForRoom = false
                return false
            }
            state.watchers[id]?.lastSent = digest
            return true
        }
        guard isNew else { return }
        responder.yield(board) { [weak self] in
            guard let self else { return }
            self.queue.async { self.roomAgain(id) }
        }
    }

    /// How many watch now (for tests: a call that ended leaves none behind).
    var watcherCount: Int { state.withLock { $0.watchers.count } }

    private func board(_ week: ISOWeek, _ order: BoardOrder, _ viewer: UInt64, now: Int64)
        -> WaterV1.WatchBoardResponse
    {
        let username = try? boards.store.accounts.read { $0.accounts[viewer]?.username }
        return WaterV1.WatchBoardResponse(
            board: boards.wireBoard(week: week, order: order, viewer: username, now: now))
    }
}
