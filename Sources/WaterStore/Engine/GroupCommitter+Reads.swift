/// Reads and what they may show: a read of durable state only (what a listener sends out), and
/// a read whose reply waits until what it showed is durable (one made off the event loop).
extension GroupCommitter {
    /// Where a read of durable state started (``beginDurableRead()``).
    public struct DurableRead: Sendable {
        fileprivate let finishedBefore: UInt64
    }

    /// Starts a read that must show durable writes only (what a listener sends out, a board for
    /// the wall): read, then ask ``endDurableRead(_:orElse:)`` whether it may be used.
    public func beginDurableRead() -> DurableRead {
        DurableRead(finishedBefore: notices.finishedThrough)
    }

    /// Whether every write the read could have seen was in a group finished before it started:
    /// durable, or rolled back before it read. An archive's write is queued in the critical
    /// section that applies it, so one the read saw is in ``lastQueuedGroup`` or earlier. When
    /// not, `retry` runs once those groups have finished, and the read is to be thrown away.
    public func endDurableRead(_ read: DurableRead, orElse retry: @escaping @Sendable () -> Void) -> Bool {
        let queued = lastQueuedGroup
        guard queued > read.finishedBefore else { return true }
        notices.after(queued) { _ in retry() }
        return false
    }

    /// Where a read off the event loop started (``beginStoreRead()``): the oldest group whose
    /// writes it may show.
    public struct StoreRead: Sendable {
        fileprivate let from: UInt64
    }

    /// Starts a read whose reply may show writes not yet durable, as a reply made on the event
    /// loop does (a year of drinks on the read pool): read, then ask ``endStoreRead(_:then:)``
    /// whether the reply may go.
    public func beginStoreRead() -> StoreRead {
        // A group that finished before the read began was rolled back before, if it failed.
        StoreRead(from: notices.finishedThrough + 1)
    }

    /// Runs `then` once every write the read could have seen is durable or rolled back: with
    /// true when all of it is durable, false when a group among them failed (the reply is to be
    /// refused: it may show a write that is not stored). At once, on this thread, when the read
    /// saw no write that was still being synced; else on the thread that tells of groups, which
    /// `then` must only hand its work on from.
    public func endStoreRead(_ read: StoreRead, then: @escaping @Sendable (_ stored: Bool) -> Void) {
        let queued = lastQueuedGroup
        guard queued >= read.from else { return then(true) }
        notices.after(read.from...queued, then)
    }
}
