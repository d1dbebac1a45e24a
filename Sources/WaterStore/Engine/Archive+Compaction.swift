import Dispatch
import WaterCore

/// Compaction: fold the sealed journals into a new snapshot.
///
/// The leader rotates the journal (``Archive/append(_:)``) and hands the durable state, which
/// is exactly what the sealed journals hold, to a background queue: temp file, sync, rename,
/// sync the directory. Only after that are the sealed journals removed. Appends never wait for
/// it, and a crash at any point leaves files the loader reads.
extension Archive {
    /// Starts writing a snapshot of `durable` folding every journal up to `generation`; while
    /// one is being written, this one waits for it (and replaces any that was waiting).
    func startCompaction(_ durable: inout Durable, folding generation: UInt64) {
        guard !durable.isCompacting else {
            durable.queuedCompaction = (durable.sequence, generation)
            return
        }
        let job = Compaction(
            base: durable.folded, mutations: durable.unfolded, sequence: durable.sequence, generation: generation)
        durable.isCompacting = true
        Self.compactionQueue.async {
            // Snapshots queued meanwhile are written in the same turn, so a flush of the
            // compaction queue waits for them too.
            var next: Compaction? = job
            while let current = next { next = self.writeSnapshot(current) }
        }
    }

    /// Folds the journal into a new snapshot now, whatever its size (for `water-server` admin
    /// commands and benchmarks); ``FileArchiveStore/flush()`` waits for it.
    public func compact() {
        committer.perform { self.rotateNow() }
    }

    /// Snapshots are written one at a time, in the background.
    static var compactionQueue: DispatchQueue { sharedCompactionQueue }

    /// Writes one snapshot and removes the journals it folds; returns the one queued meanwhile.
    private func writeSnapshot(_ job: Compaction) -> Compaction? {
        let generation = job.generation
        let model = job.state()
        let body = model.encodeSnapshot(lastSequence: job.sequence, journalGeneration: generation)
        let file = SnapshotFile.encode(body: body, version: Model.snapshotVersion, kind: Model.kind)
        var succeeded = false
        do {
            try fileSystem.replaceFile("\(directory)/\(ArchiveFiles.snapshot)", with: file, mode: 0o600)
            for name in try fileSystem.listDirectory(directory) {
                if let old = ArchiveFiles.generation(ofJournal: name), old <= generation {
                    try fileSystem.remove("\(directory)/\(name)")
                }
            }
            succeeded = true
        } catch {
            // The journals stay: nothing is lost, and the next compaction folds them all.
            logger.error("compaction failed", ["archive.path": directory, "error": "\(error)"])
        }
        let next = durable.withLock { durable -> Compaction? in
            // Written or not, `model` is the durable state through the job's sequence: the
            // mutations it folded are the oldest unfolded ones (only appends happened since).
            durable.folded = model
            durable.unfolded.removeFirst(job.mutations.count)
            if succeeded {
                (durable.snapshotLength, durable.snapshotBodyLength) = (file.count, body.count)
                durable.compactions += 1
                durable.lastCompactionUnixMilliseconds = UnixTime.nowMilliseconds()
            }
            defer { durable.queuedCompaction = nil }
            durable.isCompacting = durable.queuedCompaction != nil
            return durable.queuedCompaction.map { queued in
                Compaction(
                    base: durable.folded, mutations: Array(durable.unfolded.prefix { $0.sequence <= queued.sequence }),
                    sequence: queued.sequence, generation: queued.generation)
            }
        }
        if succeeded {
            logger.debug("compacted", ["archive.path": directory, "snapshot.bytes": "\(file.count)"])
            compacted()
        }
        return next
    }

    /// How this archive's files stand, for tests, benchmarks and the status command.
    public var fileStatus:
        (journalBytes: Int, snapshotBytes: Int, generation: UInt64, compactions: Int, isCompacting: Bool)
    {
        durable.withLock { ($0.length, $0.snapshotLength, $0.generation, $0.compactions, $0.isCompacting) }
    }

    /// When this process last folded this archive's journal into a snapshot.
    public var lastCompactionUnixMilliseconds: Int64? {
        durable.withLock { $0.lastCompactionUnixMilliseconds }
    }
}

private let sharedCompactionQueue = DispatchQueue(label: "water.compaction", qos: .utility)
