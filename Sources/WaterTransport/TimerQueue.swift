/// Deadlines for an ``EventLoop``: a binary min-heap, so a thousand idle connections cost one
/// `epoll_wait` timeout, not a wake-up each. Cancelling is lazy: a cancelled timer stays in the
/// heap and is dropped when it comes up.
public struct TimerQueue {
    public struct ID: Hashable, Sendable {
        let value: UInt64
    }

    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    public init() {}

    public var count: Int { actions.count }

    public mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> ID {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return ID(value: id)
    }

    public mutating func cancel(_ id: ID) {
        actions[id.value] = nil
    }

    /// The actions whose deadline has passed, earliest first; they are removed.
    public mutating func takeDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = heap.first, first.deadline <= now {
            removeFirst()
            if let action = actions.removeValue(forKey: first.id) { due.append(action) }
        }
        return due
    }

    /// How long `epoll_wait` may sleep: until the nearest live deadline (rounded up), or -1.
    public mutating func millisecondsUntilNext(now: UInt64) -> Int32 {
        while let first = heap.first, actions[first.id] == nil { removeFirst() }
        guard let first = heap.first else { return -1 }
        guard first.deadline > now else { return 0 }
        return Int32(min((first.deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    private mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
