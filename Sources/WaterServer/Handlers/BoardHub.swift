import Dispatch
import WaterCore
import WaterProtocol
import WaterSync

/// The live boards of `WatchBoard` calls: each watcher gets the board when it starts and again
/// after every change to anyone's water or habits. Changes that come in a burst are sent once.
final class BoardHub: Sendable {
    /// Changes within this window are coalesced into one new board.
    static let coalescing: DispatchTimeInterval = .milliseconds(50)

    private struct Watcher {
        var order: BoardOrder
        var responder: Responder
    }

    private struct State {
        var watchers: [UInt64: Watcher] = [:]
        var nextID: UInt64 = 1
        var isBroadcastPending = false
    }

    private let boards: BoardBuilder
    private let now: @Sendable () -> Int64
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "water.board-hub")

    init(boards: BoardBuilder, now: @escaping @Sendable () -> Int64) {
        self.boards = boards
        self.now = now
    }

    /// Starts sending boards to `responder` until the call is cancelled.
    func watch(order: BoardOrder, responder: Responder) {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.watchers[state.nextID] = Watcher(order: order, responder: responder)
            return state.nextID
        }
        responder.onCancel { [weak self] in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        queue.async { [boards, self] in
            let now = self.now()
            responder.yield(
                WaterV1.WatchBoardResponse(
                    board: boards.wireBoard(week: boards.currentWeek(now: now), order: order, now: now)))
        }
    }

    /// Someone's water or habits changed (the board cache heard of it from the commit).
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
        let watchers = state.withLock { state in
            state.isBroadcastPending = false
            return Array(state.watchers.values)
        }
        let now = self.now()
        let week = boards.currentWeek(now: now)
        var built: [BoardOrder: WaterV1.WatchBoardResponse] = [:]
        for watcher in watchers {
            if built[watcher.order] == nil {
                built[watcher.order] = WaterV1.WatchBoardResponse(
                    board: boards.wireBoard(week: week, order: watcher.order, now: now))
            }
            watcher.responder.yield(built[watcher.order]!)
        }
    }
}
