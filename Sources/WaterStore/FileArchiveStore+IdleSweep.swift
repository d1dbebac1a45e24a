import CLinux
import WaterCore

/// A member's place in the store: their archive while it is in memory, and whether it was used
/// since the last sweep. Owned by ``FileArchiveStore``'s members lock.
struct MemberSlot {
    var archive: Archive<MemberArchive>?
    var used = true
    /// The archive's revision when it was dropped: what it will show, unchanged, until loaded.
    var droppedRevision: ArchiveRevision?

}

extension [UInt64: MemberSlot] {
    /// Member `id`'s archive (nil when not loaded; nil twice when there is no such member),
    /// noting the use. The slot is written only when the use is news since the last sweep:
    /// writing through the dictionary's subscript allocated on every call (two mallocs on
    /// every durable log, by `perf` on the server under load).
    mutating func use(_ id: UInt64) -> Archive<MemberArchive>?? {
        guard let slot = self[id] else { return nil }
        if !slot.used { self[id]?.used = true }
        return .some(slot.archive)
    }
}

/// Idle archives leave memory (the LRU a cache-backed store keeps): a member who has not used
/// their archive since the previous sweep costs the server nothing but its files, and their
/// next call loads it again, as the first call after a start does.
extension FileArchiveStore {
    /// Drops every member's archive unused since the previous call, held by nothing but the
    /// store, and whose snapshot holds its whole state. One with records only the log holds is
    /// snapshotted instead, so the next sweep can drop it: loading reads the snapshot, and the
    /// log's records of a loaded archive are not kept for a second load (``SharedLog/loaded(_:)``).
    /// - Returns: how many archives were dropped.
    @discardableResult
    public func dropIdleMembers() -> Int {
        var snapshotDue: [Archive<MemberArchive>] = []
        let dropped = members.withLock { members in
            var dropped = 0
            for id in Array(members.keys) {
                guard var archive = members[id]?.archive else { continue }
                if members[id]!.used {
                    members[id]!.used = false
                    continue
                }
                // Only the slot and `archive` hold it now; if nothing else does, no other thread
                // can be inside its locks or get it back (``member(_:)`` waits for this lock).
                members[id]!.archive = nil
                if isKnownUniquelyReferenced(&archive) {
                    switch archive.rest {
                    case .atRest:
                        members[id]!.droppedRevision = archive.revision
                        dropped += 1
                        continue
                    case .snapshotDue: snapshotDue.append(archive)
                    case .busy: break
                    }
                }
                members[id]!.archive = archive
            }
            return dropped
        }
        for archive in snapshotDue { archive.compact() }
        guard dropped > 0 else { return 0 }
        droppedCount.withLock { $0 += dropped }
        // The dropped models' arrays were freed: give their pages back to the system.
        CLinux_release_free_memory()
        logger.debug("idle archives dropped", ["count": "\(dropped)"])
        return dropped
    }

    /// The revision of member `id`'s archive (the one it had when dropped, while not in memory),
    /// without loading it or counting a use; nil when it was never loaded. For a cache of
    /// something derived from archives, which reads an archive again only when this changed.
    public func revision(ofMember id: UInt64) -> ArchiveRevision? {
        // The archive's lock is taken after the members' lock is released: writers hold an
        // archive's lock while they look members up.
        let (archive, dropped) = members.withLock { ($0[id]?.archive, $0[id]?.droppedRevision) }
        return archive?.revision ?? dropped
    }

    /// How many idle archives were dropped since the store opened.
    public var archivesDropped: Int { droppedCount.withLock { $0 } }
}

/// Whether an archive may leave memory.
enum ArchiveRest {
    /// Its snapshot holds its whole state: loading it again gives the same state.
    case atRest
    /// Healthy and with nothing waiting to be written, but records since the snapshot are only
    /// in the log (and in memory): a snapshot would put it at rest.
    case snapshotDue
    /// Writes are waiting, a snapshot is being written, or it is protected.
    case busy
}

extension Archive {
    /// Whether this archive may be dropped from memory now (``FileArchiveStore/dropIdleMembers()``).
    var rest: ArchiveRest {
        latest.withLock { latest in
            guard latest.unsynced.isEmpty, latest.protection == nil, latest.restoreFailure == nil else {
                return .busy
            }
            return durable.withLock { durable in
                if durable.isCompacting || durable.isCompactionQueued { return .busy }
                let folded = durable.unfolded.isEmpty && durable.logBytes == 0 && !durable.isCompactionDue
                return folded ? .atRest : .snapshotDue
            }
        }
    }
}
