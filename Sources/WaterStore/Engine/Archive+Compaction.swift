import Dispatch
import WaterCore

/// Compaction: fold the journal into a new snapshot once it has grown past a threshold.
///
/// On the committer's thread, between groups, the journal is rotated: a new generation is
/// started and appends go there from the next group on, so they never wait for the snapshot.
/// The snapshot of the durable state (which is exactly the old journals' content) is then
/// written on a background queue: temp file, sync, rename, sync the directory. Only after
/// that are the old journals removed. A crash at any point leaves files the loader reads.
extension Archive: CommitTarget {
    /// Journals are folded when they pass this size, or the snapshot's size if larger, so the
    /// cost of rewriting the snapshot stays proportional to what was appended since the last.
    func compactIfNeeded() {
        let job = durable.withLock { durable -> (model: Model, sequence: UInt64, generation: UInt64)? in
            let journalBytes = durable.length - JournalFile.headerLength
            let due = durable.isCompactionDue || journalBytes > max(compactionThreshold, durable.snapshotLength)
            guard due, !durable.isCompacting, !durable.tailIsDirty, let oldJournal = durable.journal else { return nil }
            do {
                let journal = try Self.startJournal(generation: durable.generation + 1, directory: directory,
                                                    fileSystem: fileSystem)
                fileSystem.close(oldJournal)
                durable.journal = journal
                durable.generation += 1
                durable.length = JournalFile.headerLength
                durable.syncedLength = durable.length
            } catch {
                logger.error("journal rotation failed", ["archive.path": directory, "error": "\(error)"])
                return nil
            }
            durable.isCompacting = true
            return (durable.model, durable.sequence, durable.generation - 1)
        }
        guard let job else { return }
        Self.compactionQueue.async { self.writeSnapshot(job.model, sequence: job.sequence, folding: job.generation) }
    }

    /// Folds the journal into a new snapshot now, whatever its size (for `water-server` admin
    /// commands and benchmarks); ``FileArchiveStore/flush()`` waits for it.
    public func compact() {
        committer.perform {
            self.durable.withLock { $0.isCompactionDue = true }
            self.compactIfNeeded()
        }
    }

    /// Snapshots are written one at a time, in the background.
    static var compactionQueue: DispatchQueue { sharedCompactionQueue }

    private func writeSnapshot(_ model: Model, sequence: UInt64, folding generation: UInt64) {
        let file = SnapshotFile.encode(body: model.encodeSnapshot(lastSequence: sequence, journalGeneration: generation),
                                       version: Model.snapshotVersion, kind: Model.kind)
        var failure: ArchiveError?
        do {
            try fileSystem.replaceFile("\(directory)/\(ArchiveFiles.snapshot)", with: file, mode: 0o600)
            for name in try fileSystem.listDirectory(directory) {
                if let old = ArchiveFiles.generation(ofJournal: name), old <= generation {
                    try fileSystem.remove("\(directory)/\(name)")
                }
            }
        } catch {
            // The journals stay: nothing is lost, and the next compaction folds them all.
            failure = ArchiveError(error)
            logger.error("compaction failed", ["archive.path": directory, "error": "\(error)"])
        }
        durable.withLock { durable in
            durable.isCompacting = false
            durable.lastCompactionError = failure
            if failure == nil {
                durable.snapshotLength = file.count
                durable.isCompactionDue = false
                durable.compactions += 1
                durable.lastCompactionUnixMilliseconds = UnixTime.nowMilliseconds()
            }
        }
        if failure == nil {
            logger.debug("compacted", ["archive.path": directory, "snapshot.bytes": "\(file.count)"])
        }
    }

    /// How this archive's files stand, for tests, benchmarks and the status command.
    public var fileStatus: (journalBytes: Int, snapshotBytes: Int, generation: UInt64, compactions: Int, isCompacting: Bool) {
        durable.withLock { ($0.length, $0.snapshotLength, $0.generation, $0.compactions, $0.isCompacting) }
    }

    /// When this process last folded this archive's journal into a snapshot.
    public var lastCompactionUnixMilliseconds: Int64? {
        durable.withLock { $0.lastCompactionUnixMilliseconds }
    }
}

private let sharedCompactionQueue = DispatchQueue(label: "water.compaction", qos: .utility)
