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
    /// The durable state is read back from the snapshot; when that fails too, the archive's
    /// reads and writes fail until it can be read (``restore(_:)``), never showing what was lost.
    func rollBack(_ error: ArchiveError) {
        let sequence = durable.withLock { $0.sequence }
        latest.withLock { latest in
            latest.nextSequence = sequence + 1
            latest.unsynced.removeAll()
            latest.epoch += 1
            try? restore(&latest)
        }
        logger.error("write failed", ["archive.path": directory, "error": error.description])
    }

    /// Puts `latest` back on the durable state, read back from disk (a roll-back, rare: the
    /// caller holds `latest`'s lock through the read).
    /// - Throws: `.ioFailure` when it cannot be read; `latest.model` is void until it can.
    func restore(_ latest: inout Latest) throws(ArchiveError) {
        let state = durable.withLock { Compaction($0) }
        do throws(ArchiveError) {
            latest.model = try readDurableState(state)
            latest.restoreFailure = nil
        } catch {
            latest.restoreFailure = ArchiveError(
                .ioFailure,
                "\(directory) could not be read back after a failed write (\(error.message)); nothing of it is "
                    + "lost, try again",
                cause: error.cause)
            logger.error("archive not restored", ["archive.path": directory, "error": error.description])
            throw latest.restoreFailure!
        }
    }

    /// Reads the durable state back: the snapshot on disk (the empty archive when there is none
    /// yet) with `state`'s mutations applied. A snapshot written since `state` was taken (or one
    /// renamed into place before a failed directory sync) holds some of them already: those are
    /// skipped, so the result is the same whichever snapshot it finds.
    /// - Throws: what reading the snapshot throws, or `.corrupt` when the snapshot and the
    ///   mutations do not meet (a gap, or a snapshot past them).
    func readDurableState(_ state: Compaction) throws(ArchiveError) -> Model {
        var model: Model
        var through: UInt64
        if state.hasSnapshot {
            let snapshot = try ArchiveLoader<Model>.readSnapshot(
                fileSystem: fileSystem, directory: directory, context: context)
            (model, through) = (snapshot.model, snapshot.lastSequence)
        } else {
            (model, through) = (Model(context: context), 0)
        }
        for (sequence, mutation) in state.mutations where sequence > through {
            guard sequence == through + 1 else {
                throw ArchiveError(
                    .corrupt, "\(directory)'s snapshot holds records up to \(through); the next one kept is \(sequence)"
                )
            }
            model.apply(mutation)
            through = sequence
        }
        guard through == state.sequence else {
            throw ArchiveError(
                .corrupt, "\(directory)'s snapshot holds records up to \(through), not the \(state.sequence) expected")
        }
        return model
    }
}
