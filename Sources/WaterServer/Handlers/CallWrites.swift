import Synchronization

/// The groups of the shared log that one call's own writes were queued in
/// (``ArchiveAccess/commitReturning(for:_:_:result:)`` records them), so that the call's reply
/// is refused only when one of them fails (``PendingReplies``): the reply may wait for a later
/// group, one another thread queued into while the handler ran, whose failure does not undo
/// this call's write.
///
/// Owned by one ``Connection``, which clears it before each handler it runs on its loop and
/// takes it once the handler has answered; reused from call to call, so a call allocates
/// nothing for it. An atomic only so that the context that carries it can be `Sendable`.
final class CallWrites: Sendable {
    /// 0: nothing written since the last ``take()``.
    private let oldestGroup = Atomic<UInt64>(0)
    private let newestGroup = Atomic<UInt64>(0)

    init() {}

    /// A write of the call was queued in `group`.
    func queued(in group: UInt64) {
        newestGroup.max(group, ordering: .relaxed)
        if oldestGroup.compareExchange(expected: 0, desired: group, ordering: .relaxed).exchanged { return }
        oldestGroup.min(group, ordering: .relaxed)
    }

    /// The groups the call wrote in, oldest to newest (nil: it wrote nothing), and forgets them
    /// for the next call. A call that wrote several archives (a zone change, a household's
    /// excuse) may have had them taken into two groups, and fails with either.
    func take() -> ClosedRange<UInt64>? {
        let (oldest, newest) = (
            oldestGroup.exchange(0, ordering: .relaxed), newestGroup.exchange(0, ordering: .relaxed)
        )
        return newest == 0 ? nil : oldest...newest
    }
}
