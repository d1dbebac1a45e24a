/// What ``Archive/commitReturning(_:result:)`` gives back: the value made of the state after
/// the write, the group of the shared log the write was queued in, and the archive in the epoch
/// it wrote in. A reply that tells of the write is refused only when that group names that
/// archive and epoch among its lost writes (``GroupOutcome``); it may wait for a later group
/// (what else it showed), but a later group's failure says nothing about this write, nor does
/// another archive's in the same group.
public struct Committed<Value> {
    public var value: Value
    public var group: UInt64
    public var written: ArchiveEpoch
}

/// An archive in one of its epochs (bumped at each roll-back): the writes queued in it are
/// stored unless the archive rolls back while that epoch lasts.
public struct ArchiveEpoch: Hashable, Sendable {
    /// The archive's key in the shared log (``ArchiveKey``).
    public var archive: UInt64
    public var epoch: UInt64

    public init(archive: UInt64, epoch: UInt64) {
        (self.archive, self.epoch) = (archive, epoch)
    }
}

/// What became of a group of the shared log: which archives' writes in it were not stored.
/// A failed sync loses every archive the frame held; a write queued before its archive rolled
/// back for an earlier group (a stale one) loses only that archive, and another archive's write
/// in the same group is durable.
public struct GroupOutcome: Sendable, Equatable {
    public var group: UInt64
    /// Whose writes in the group were not stored, each once; empty when all are durable.
    public var lost: [ArchiveEpoch]

    public init(group: UInt64, lost: [ArchiveEpoch] = []) {
        (self.group, self.lost) = (group, lost)
    }

    /// Whether every write of the group is durable.
    public var succeeded: Bool { lost.isEmpty }
}
