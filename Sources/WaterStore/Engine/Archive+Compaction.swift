import CLinux
import Dispatch
import WaterCore
import WaterSystem

/// Compaction: fold what the log holds of an archive into a new snapshot.
///
/// The leader hands the durable state, which is exactly what the archive's chunks in the log
/// up to a position hold, to a background queue, which reads the snapshot back, applies the
/// mutations after it and writes the result: temp file, sync, rename, sync the directory.
/// Only then does the store learn that the archive's chunks up to there are no longer needed
/// (``SharedLog/snapshotWritten(_:at:)``), and log segments nobody needs go. Appends never wait
/// for it, and a crash at any point leaves files the loader reads: the old snapshot and the
/// chunks after it, or the new one, which says where it stands.
extension Archive {
    /// Starts writing a snapshot of `durable`; while one is being written, this one waits for
    /// it (and folds everything durable by then).
    func startCompaction(_ durable: inout Durable) {
        guard !durable.isCompacting else {
            durable.isCompactionQueued = true
            return
        }
        let job = Compaction(durable)
        durable.isCompacting = true
        durable.isCompactionDue = false
        durable.logBytes = 0
        Self.compactionQueue.async {
            // Snapshots queued meanwhile are written in the same turn, so a flush of the
            // compaction queue waits for them too.
            var next: Compaction? = job
            while let current = next { next = self.writeSnapshot(current) }
            // The snapshot read back, its body and its file were freed on this queue's thread:
            // give those pages back to the system (as a load does, ``FileArchiveStore``).
            CLinux_release_free_memory()
        }
    }

    /// Folds the log into a new snapshot now, whatever its size (for `water-server` admin
    /// commands, benchmarks, and a log grown too long); ``FileArchiveStore/flush()`` waits
    /// for it.
    public func compact() {
        guard protection == nil else { return }
        durable.withLock { startCompaction(&$0) }
    }

    /// Snapshots are written one at a time, in the background.
    static var compactionQueue: DispatchQueue { sharedCompactionQueue }

    /// Writes one snapshot; returns the one queued meanwhile.
    private func writeSnapshot(_ job: Compaction) -> Compaction? {
        var written: (fileLength: Int, bodyLength: Int)?
        do {
            let started = DispatchTime.now().uptimeNanoseconds
            written = try replaceSnapshot(job)
            log.snapshotDurations.record(DispatchTime.now().uptimeNanoseconds - started)
        } catch {
            // The snapshot on disk and the log's chunks after it are untouched (or the new
            // snapshot is in place but not known durable): the mutations stay, and the next
            // snapshot folds them all.
            logger.error("compaction failed", ["archive.path": directory, "error": "\(error)"])
        }
        let next = durable.withLock { durable -> Compaction? in
            if let written {
                // Only appends happened since the job was taken: its mutations are the oldest.
                // What stays goes into an array of its own size: `removeFirst` would keep the
                // capacity of the longest run between two snapshots for good.
                durable.unfolded = Array(durable.unfolded[job.mutations.count...])
                (durable.snapshotLength, durable.snapshotBodyLength) = written
                durable.snapshotPosition = job.position
                durable.compactions += 1
                durable.lastCompactionUnixMilliseconds = UnixTime.nowMilliseconds()
            } else {
                durable.isCompactionDue = true
            }
            guard durable.isCompactionQueued else {
                durable.isCompacting = false
                return nil
            }
            durable.isCompactionQueued = false
            durable.logBytes = 0
            return Compaction(durable)
        }
        if let written {
            logger.debug("compacted", ["archive.path": directory, "snapshot.bytes": "\(written.fileLength)"])
            log.snapshotWritten(key, at: job.position)
            compacted()
        }
        return next
    }

    /// Reads the durable state back, folds `job`'s mutations in and replaces the snapshot with
    /// it. The model lives only for this call.
    /// - Returns: the new file's size and its body's.
    private func replaceSnapshot(_ job: Compaction) throws -> (fileLength: Int, bodyLength: Int) {
        let model = try readDurableState(job)
        let body = model.encodeSnapshot(lastSequence: job.sequence, journalGeneration: job.position.generation)
        let file = SnapshotFile.encode(
            body: body, version: Model.snapshotVersion, kind: Model.kind,
            stamp: SnapshotFile.Stamp(lastSequence: job.sequence, position: job.position))
        try fileSystem.replaceFile("\(directory)/\(ArchiveFiles.snapshot)", with: file, mode: 0o600)
        return (file.count, body.count)
    }

    /// How this archive's files stand, for tests, benchmarks and the status command: the bytes
    /// of the log its chunks take since the snapshot, the snapshot's size, how many snapshots
    /// this process wrote, and whether one is being written.
    public var fileStatus: (logBytes: Int, snapshotBytes: Int, compactions: Int, isCompacting: Bool) {
        durable.withLock { ($0.logBytes, $0.snapshotLength, $0.compactions, $0.isCompacting) }
    }

    /// When this process last folded this archive's log into a snapshot.
    public var lastCompactionUnixMilliseconds: Int64? {
        durable.withLock { $0.lastCompactionUnixMilliseconds }
    }
}

private let sharedCompactionQueue = DispatchQueue(label: "water.compaction", qos: .utility)
