import WaterSync

/// Something happened that another part of the server listens for, told from whichever thread
/// it happened on: a compaction finished (the status timer hears it), a write changed a board
/// (the Home Assistant publisher hears it), a publisher's status changed (the status timer hears
/// it). Firing with no listener costs one uncontended lock.
public final class Signal: Sendable {
    private let listeners = Locked<[@Sendable () -> Void]>([])

    public init() {}

    /// Adds `body`, which runs on the firing thread and must return quickly.
    public func listen(_ body: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.append(body) }
    }

    public func fire() {
        for listener in listeners.withLock({ $0 }) { listener() }
    }
}
