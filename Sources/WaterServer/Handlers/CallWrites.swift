import WaterStore
import WaterSync

/// The writes of one call answered on the event loop: each one's group of the shared log and
/// its archive in the epoch it wrote in, so that the call's reply is refused only when one of
/// them was not stored (``PendingReplies``). Its reply may wait for a later group (another
/// thread queued into it while the handler ran), whose failure does not undo this call's
/// write; nor does the loss of another archive's stale write in its own group.
struct OwnWrites: Equatable {
    struct Write: Equatable {
        var group: UInt64
        var archive: ArchiveEpoch
    }

    /// The first write, kept inline: a call with one write allocates nothing here.
    private(set) var first: Write
    /// The others (a zone change, a household's excuse), each once.
    private(set) var more: [Write] = []

    init(_ first: Write) {
        self.first = first
    }

    mutating func add(_ write: Write) {
        guard write != first, !more.contains(write) else { return }
        more.append(write)
    }

    /// Whether `outcome` lost one of them.
    func isLost(in outcome: GroupOutcome) -> Bool {
        guard !outcome.lost.isEmpty else { return false }
        func lost(_ write: Write) -> Bool { write.group == outcome.group && outcome.lost.contains(write.archive) }
        return lost(first) || more.contains(where: lost)
    }
}

/// Where the writes of the call running on the loop are recorded
/// (``ArchiveAccess/commitReturning(for:_:_:result:)`` records them).
///
/// Owned by one ``Connection``, which takes it once each handler it runs on its loop has
/// answered; reused from call to call. Locked only so that the context that carries it can be
/// `Sendable`: the loop alone touches it.
final class CallWrites: Sendable {
    private let writes = Locked<OwnWrites?>(nil)

    init() {}

    /// A write of the call was queued in `group`, to `archive` in its epoch then.
    func queued(_ archive: ArchiveEpoch, in group: UInt64) {
        let write = OwnWrites.Write(group: group, archive: archive)
        writes.withLock { writes in
            if writes == nil { writes = OwnWrites(write) } else { writes!.add(write) }
        }
    }

    /// The call's writes (nil: it wrote nothing), forgotten for the next call. A call that
    /// wrote several archives (a zone change, a household's excuse) may have had them taken
    /// into two groups, and is refused when either loses its write.
    func take() -> OwnWrites? {
        writes.withLock { writes in
            defer { writes = nil }
            return writes
        }
    }
}
