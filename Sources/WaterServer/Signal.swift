import WaterSync

/// Something happened that another part of the server listens for, told from whichever thread
/// it happened on: a compaction finished (the status timer hears it), a write changed a board
/// (the Home Assistant publisher hears it). Firing with no listener costs one uncontended lock.
final class Signal: Sendable {
    private let listeners = Locked<[@Sendable () -> Void]>([])

    /// Adds `body`, which runs on the firing thread and must return quickly.
    func listen(_ body: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.append(body) }
    }

    func fire() {
        for listener in listeners.withLock({ $0 }) { listener() }
    }
}
