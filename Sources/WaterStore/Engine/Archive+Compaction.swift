import Dispatch
import WaterCore

/// Compaction: fold the sealed journals into a new snapshot.
///
/// The leader rotates the journal (``Archive/append(_:)``) and hands the durable state, which
/// is exactly what the sealed journals hold, to a background queue: temp file, sync, rename,
/// sync the directory. Only after that are the sealed journals removed. Appends never wait for
/// it, and a crash at any point leaves files the loader reads.
extension Archive {
    /// Starts writing a snapshot of `durable` folding every journal up to `generation`,
    /// unless one is being written: the next rotation then folds them all.
    func startCompaction(_ durable: inout Durable, folding generation: UInt64) {
        guard !durable.isCompacting else { return }
        durable.isCompacting = true
        let (model, sequence) = (durable.model, durable.sequence)
        Self.compactionQueue.async { self.writeSnapshot(model, sequence: sequence, folding: generation) }
    }

    /// Folds the journal into a new snapshot now, whatever its size (for `water-server` admin
    /// commands and benchmarks); ``FileArchiveStore/flush()`` waits for it.
    public func compact() {
        committer.perform { self.rotateNow() }
    }

    /// Snapshots are written one at a time, in the background.
    static var compactionQueue: DispatchQueue { sharedCompactionQueue }

    private func writeSnapshot(_ model: Model, sequence: UInt64, folding generation: UInt64) {
        let file = SnapshotFile.encode(body: model.encodeSnapshot(lastSequence: sequence, journalGeneration: generation),
                                       version: Model.snapshotVersion, kind: Model.kind)
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
        durable.withLock { durable in
            durable.isCompacting = false
            if succeeded {
                durable.snapshotLength = file.count
                durable.compactions += 1
                durable.lastCompactionUnixMilliseconds = UnixTime.nowMilliseconds()
            }
        }
        if succeeded {
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
