import Synchronization

/// Counters that any thread adds to without a lock, and that a reader (the wall's `/metrics`)
/// reads one at a time: relaxed atomics, so each read is a recent value of its counter, not a
/// snapshot of all of them at one instant (which Prometheus does not ask for). Their number is
/// fixed at `init`: adding never allocates, so a hot path may count.
///
/// ## Who owns what
/// Each counter is shared by every thread that adds to it; no one owns it but through its
/// atomic. `slots` itself is written only by `init` and `deinit`.
public final class AtomicCounters: @unchecked Sendable {
    // @unchecked: the pointer is written at init and deinit only; its counters are atomics.
    private let slots: UnsafeMutablePointer<Atomic<Int>>
    public let count: Int

    public init(count: Int) {
        self.count = count
        slots = .allocate(capacity: max(count, 1))
        for index in 0..<count { (slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Adds `amount` to counter `index` (which must be below ``count``).
    public func add(_ index: Int, _ amount: Int = 1) {
        precondition(index >= 0 && index < count, "no such counter")
        slots[index].wrappingAdd(amount, ordering: .relaxed)
    }

    public subscript(index: Int) -> Int {
        precondition(index >= 0 && index < count, "no such counter")
        return slots[index].load(ordering: .relaxed)
    }
}
