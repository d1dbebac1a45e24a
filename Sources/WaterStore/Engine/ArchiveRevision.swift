import Synchronization

/// Which state of a member's archive a reader saw: it changes with every write and roll-back,
/// and each load (after an idle drop) is a new instance. What a cache of something derived from
/// an archive compares (``Archive/revision``) to know it is still current without reading it.
public struct ArchiveRevision: Hashable, Sendable {
    let instance: UInt64
    let epoch: UInt64
    let nextSequence: UInt64

    /// A number for each archive this process loads, never reused.
    static func nextInstance() -> UInt64 {
        loadedInstances.add(1, ordering: .relaxed).newValue
    }
}

private let loadedInstances = Atomic<UInt64>(0)

extension Archive {
    /// The state callers see now, as a revision.
    public var revision: ArchiveRevision {
        latest.withLock { ArchiveRevision(instance: instance, epoch: $0.epoch, nextSequence: $0.nextSequence) }
    }
}
