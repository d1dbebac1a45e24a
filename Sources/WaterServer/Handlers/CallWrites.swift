import Synchronization

/// The newest group of the shared log that one call's own writes were queued in
/// (``ArchiveAccess/commitReturning(for:_:_:result:)`` records it), so that the call's reply is
/// refused only when that group fails (``PendingReplies``): the reply may wait for a later
/// group, one another thread queued into while the handler ran, whose failure does not undo
/// this call's write.
///
/// Owned by one ``Connection``, which clears it before each handler it runs on its loop and
/// takes it once the handler has answered; reused from call to call, so a call allocates
/// nothing for it. An atomic only so that the context that carries it can be `Sendable`.
final class CallWrites: Sendable {
    /// 0: nothing written since the last ``take()``.
    private let newestGroup = Atomic<UInt64>(0)

    init() {}

    /// A write of the call was queued in `group`.
    func queued(in group: UInt64) {
        newestGroup.max(group, ordering: .relaxed)
    }

    /// The newest group the call wrote in (nil: it wrote nothing), and forgets it for the next.
    func take() -> UInt64? {
        let group = newestGroup.exchange(0, ordering: .relaxed)
        return group == 0 ? nil : group
    }
}
