import WaterCore

/// The durable side of an archive: what the committer's leader does once a group's frame is
/// synced, or when it failed. It owns `durable` (with the snapshot writer, for the snapshot's
/// figures).
extension Archive: CommitTarget {
    func isCurrent(epoch: UInt64) -> Bool {
        latest.withLock { $0.epoch == epoch && $0.protection == nil }
    }

    /// Everything submitted up to `sequence` is on disk, in a frame ending at `position`: it
    /// joins the durable state (applied to it only when a snapshot needs it). A snapshot starts
    /// once the log holds enough of this archive since the last one (``compactionDue``).
    @_specialize(where Model == MemberArchive)
    @_specialize(where Model == TodoList)
    @_specialize(where Model == AccountBook)
    func markDurable(through sequence: UInt64, at position: LogPosition, bytes: Int) {
        // The two locks nest in this order only (latest, then durable), so nothing waits for
        // itself; the mutations move across without an array in between.
        latest.withLock { latest in
            var count = 0
            while count < latest.unsynced.count, latest.unsynced[count].sequence <= sequence { count += 1 }
            durable.withLock { durable in durable.unfolded.append(contentsOf: latest.unsynced[..<count]) }
            latest.unsynced.removeFirst(count)
        }
        durable.withLock { durable in
            durable.sequence = max(durable.sequence, sequence)
            durable.position = max(durable.position, position)
            durable.logBytes += bytes
            let due = Self.compactionDue(
                compactionThreshold: compactionThreshold, snapshotBodyLength: durable.snapshotBodyLength)
            if durable.logBytes >= due || durable.isCompactionDue {
                startCompaction(&durable)
            }
        }
    }

    /// How many bytes of the log an archive's chunks take before a snapshot folds them: the
    /// compaction threshold, or the snapshot's body (its size before compression) if larger. A
    /// snapshot encodes and compresses that whole body, so this keeps its cost at about what was
    /// appended since the last one, however well the body compresses. (At half the body, a
    /// member logging without pause had their snapshot rewritten twice a second under
    /// `scripts/bench server`, 13 % of the server's CPU; the log holds the difference, and a
    /// start reads it.)
    static func compactionDue(compactionThreshold: Int, snapshotBodyLength: Int) -> Int {
        max(compactionThreshold, snapshotBodyLength)
    }

    /// A write or sync failed: forget everything not yet durable, and void what was submitted
    /// on top of it (the log itself went back to its synced end, ``WriteAheadLog/rollBack()``).
    func rollBack(_ error: ArchiveError) {
        let (model, sequence) = durable.withLock { durable -> (Model, UInt64) in
            let state = Compaction(
                base: durable.folded, mutations: durable.unfolded, sequence: durable.sequence,
                position: durable.position)
            return (state.state(), durable.sequence)
        }
        latest.withLock { latest in
            latest.model = model
            latest.nextSequence = sequence + 1
            latest.unsynced.removeAll()
            latest.epoch += 1
        }
        logger.error("write failed", ["archive.path": directory, "error": error.description])
    }
}
