import WaterLog

/// The journal side of an archive: everything here runs on the committer's leader (or, for
/// ``prepareForWriting``, before the archive is shared), which owns `durable`.
///
/// Rotation, when the next frame would not fit in the segment (or a compaction is due):
/// 1. the next segment is made, full length, durably (temp, sync, rename, sync directory),
///    its header saying it starts after the last durable record;
/// 2. the old segment is sealed (a seal frame naming the next, then a sync);
/// 3. appends go to the new segment, and the old ones are folded into a snapshot in the
///    background (``Archive/writeSnapshot``).
/// A crash between 1 and 2 leaves an old segment without a seal (or with a torn one) and an
/// empty new one: the loader accepts exactly that, and the next start finishes the seal. Any
/// other missing seal or successor is damage.
extension Archive: CommitTarget {
    /// After a successful load, and only then: cut a torn tail, finish a seal a crash cut
    /// short, remove leftovers, and open the journal to append to.
    static func prepareForWriting(
        _ loaded: ArchiveLoader<Model>.LoadedArchive, directory: String,
        fileSystem: any FileSystem, logger: Logger, compactionThreshold: Int
    )
        throws(ArchiveError) -> Durable
    {
        do {
            for name in loaded.temporaryFiles + loaded.obsoleteJournals {
                try fileSystem.remove("\(directory)/\(name)")
            }
            if let unfinished = loaded.unfinishedSeal {
                let handle = try fileSystem.open(
                    "\(directory)/\(ArchiveFiles.journal(generation: unfinished.generation))",
                    create: false, mode: 0o600)
                defer { fileSystem.close(handle) }
                try fileSystem.write(
                    handle,
                    JournalFile.seal(
                        nextGeneration: unfinished.generation + 1,
                        lastSequence: unfinished.lastSequence), at: unfinished.offset)
                try fileSystem.sync(handle)
            }
            var durable = Durable(
                folded: loaded.model, sequence: loaded.lastSequence, journal: nil,
                generation: loaded.snapshotGeneration, length: 0, syncedLength: 0,
                snapshotLength: loaded.snapshotLength, snapshotBodyLength: loaded.snapshotBodyLength)
            if let current = loaded.currentJournal {
                let handle = try fileSystem.open(
                    "\(directory)/\(ArchiveFiles.journal(generation: current.generation))",
                    create: false, mode: 0o600)
                if let tail = current.tornTail {
                    logger.warning(
                        "journal tail cut",
                        [
                            "archive.path": directory, "journal.generation": "\(current.generation)",
                            "bytes": "\(tail.length)", "records": tail.records.map { "\($0)" } ?? "unknown",
                            "why": "a write a crash cut short; it was never acknowledged",
                        ])
                    if current.version == 1 {
                        try fileSystem.truncate(handle, to: tail.offset)
                    } else {
                        try fileSystem.write(handle, [UInt8](repeating: 0, count: tail.length), at: tail.offset)
                    }
                    try fileSystem.sync(handle)
                }
                (durable.journal, durable.generation) = (handle, current.generation)
                (durable.journalVersion, durable.segmentLength) = (current.version, current.fileLength)
                durable.length = current.validLength
            } else {
                durable.generation += 1
                durable.segmentLength = segmentLength(
                    compactionThreshold: compactionThreshold,
                    snapshotLength: durable.snapshotLength, frameLength: 0)
                durable.journal = try startJournal(
                    generation: durable.generation, startsAfter: durable.sequence,
                    length: durable.segmentLength, directory: directory,
                    fileSystem: fileSystem)
                durable.length = JournalFile.headerLength
            }
            durable.syncedLength = durable.length
            durable.writtenEnd = durable.length
            durable.isCompactionDue =
                loaded.needsMigration || loaded.liveJournalCount > 1
                || durable.journalVersion < JournalFile.version
            return durable
        } catch {
            throw ArchiveError(error)
        }
    }

    /// A segment's length: the compaction threshold, or half the snapshot file if larger (see
    /// ``StoreOptions/compactionThreshold``), and always room for one frame and the seal; whole
    /// sectors. The space a segment reserves stays small beside the archive.
    static func segmentLength(compactionThreshold: Int, snapshotLength: Int, frameLength: Int) -> Int {
        let needed = max(
            compactionThreshold, snapshotLength / 2,
            JournalFile.headerLength + frameLength + JournalFile.sealLength)
        return (needed + 511) / 512 * 512
    }

    /// Creates journal `generation` durably, full length, and opens it for appending.
    static func startJournal(
        generation: UInt64, startsAfter sequence: UInt64, length: Int, directory: String,
        fileSystem: any FileSystem
    ) throws(FileSystemError) -> FileHandleID {
        let path = "\(directory)/\(ArchiveFiles.journal(generation: generation))"
        let segment = JournalFile.segment(
            kind: Model.kind, generation: generation, startsAfter: sequence, length: length)
        try fileSystem.replaceFile(path, with: segment, mode: 0o600)
        return try fileSystem.open(path, create: false, mode: 0o600)
    }

    // MARK: Called by the committer's leader

    func isCurrent(epoch: UInt64) -> Bool {
        latest.withLock { $0.epoch == epoch && $0.protection == nil }
    }

    /// Appends one frame to the journal, not yet synced, and returns the handle to sync.
    /// Rotates first when the frame would not fit, or a compaction is due.
    func append(_ frame: [UInt8]) throws(ArchiveError) -> FileHandleID {
        try durable.withLock { (durable) throws(ArchiveError) -> FileHandleID in
            guard durable.journal != nil else { throw ArchiveError(.ioFailure, "\(directory) has no open journal") }
            do throws(FileSystemError) {
                try cleanTail(&durable)
                let fits = durable.length + frame.count + JournalFile.sealLength <= durable.segmentLength
                if !fits || durable.isCompactionDue || durable.journalVersion < JournalFile.version {
                    try rotate(&durable, frameLength: frame.count, compacting: durable.isCompactionDue)
                }
                durable.writtenEnd = max(durable.writtenEnd, durable.length + frame.count)
                try fileSystem.write(durable.journal!, frame, at: durable.length)
            } catch {
                throw ArchiveError(error)
            }
            durable.length += frame.count
            return durable.journal!
        }
    }

    /// How many sealed journal bytes wait before a compaction folds them: the compaction
    /// threshold, or half the snapshot's body (its size before compression) if larger. A
    /// compaction encodes and compresses that whole body, so this keeps its cost at about twice
    /// what was appended since the last one, however well the body compresses; with a body that
    /// compresses well, several segments are folded at once.
    static func compactionDue(compactionThreshold: Int, snapshotBodyLength: Int) -> Int {
        max(compactionThreshold, snapshotBodyLength / 2)
    }

    /// Forces a rotation and a snapshot now, between two groups (admin commands, benchmarks).
    func rotateNow() {
        durable.withLock { durable in
            guard durable.journal != nil, durable.length > JournalFile.headerLength || durable.isCompactionDue else {
                return
            }
            do throws(FileSystemError) {
                try cleanTail(&durable)
                try rotate(&durable, frameLength: 0, compacting: true)
            } catch {
                logger.error("journal rotation failed", ["archive.path": directory, "error": error.description])
            }
        }
    }

    /// Seals the journal and starts the next segment; then starts a compaction of every sealed
    /// segment when `compacting` says so or enough of them wait (``compactionDue``).
    private func rotate(_ durable: inout Durable, frameLength: Int, compacting: Bool) throws(FileSystemError) {
        let next = durable.generation + 1
        let length = Self.segmentLength(
            compactionThreshold: compactionThreshold, snapshotLength: durable.snapshotLength,
            frameLength: frameLength)
        let journal = try Self.startJournal(
            generation: next, startsAfter: durable.sequence, length: length,
            directory: directory, fileSystem: fileSystem)
        let old = durable.journal!
        if durable.journalVersion >= 2 {
            do {
                durable.writtenEnd = max(durable.writtenEnd, durable.length + JournalFile.sealLength)
                try fileSystem.write(
                    old, JournalFile.seal(nextGeneration: next, lastSequence: durable.sequence),
                    at: durable.length)
                try fileSystem.sync(old)
            } catch {
                // Undo the rotation: the new segment goes, the old one stays current and its
                // torn seal is zeroed before the next append.
                fileSystem.close(journal)
                try? fileSystem.remove("\(directory)/\(ArchiveFiles.journal(generation: next))")
                try? fileSystem.syncDirectory(directory)
                throw error
            }
        }
        fileSystem.close(old)
        durable.sealedBytes += durable.segmentLength
        durable.journal = journal
        durable.generation = next
        durable.journalVersion = JournalFile.version
        durable.segmentLength = length
        durable.length = JournalFile.headerLength
        durable.syncedLength = durable.length
        durable.writtenEnd = durable.length
        durable.isCompactionDue = false
        let due = Self.compactionDue(
            compactionThreshold: compactionThreshold, snapshotBodyLength: durable.snapshotBodyLength)
        if compacting || durable.sealedBytes >= due {
            durable.sealedBytes = 0
            startCompaction(&durable, folding: next - 1)
        }
    }

    /// Everything submitted up to `sequence` is on disk: it joins the durable state (applied to
    /// it only when a compaction needs it).
    func markDurable(through sequence: UInt64) {
        let synced = latest.withLock { latest in
            let count = latest.unsynced.prefix { $0.sequence <= sequence }.count
            defer { latest.unsynced.removeFirst(count) }
            return latest.unsynced.prefix(count)
        }
        durable.withLock { durable in
            durable.unfolded += synced
            durable.sequence = max(durable.sequence, sequence)
            durable.syncedLength = durable.length
            durable.writtenEnd = durable.length
        }
    }

    /// A write or sync failed: zero the journal back to what is known to be on disk, forget
    /// everything not yet durable, and void what was submitted on top of it. When even that
    /// fails, the next write tries it again first and fails while it cannot: nothing is ever
    /// appended after bytes of unknown state.
    func rollBack(_ error: ArchiveError) {
        let (model, sequence) = durable.withLock { durable -> (Model, UInt64) in
            durable.length = durable.syncedLength
            try? cleanTail(&durable)
            let state = Compaction(
                base: durable.folded, mutations: durable.unfolded, sequence: durable.sequence, generation: 0)
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

    /// Zeroes what a failed write may have left past the synced bytes, and syncs that.
    private func cleanTail(_ durable: inout Durable) throws(FileSystemError) {
        guard durable.tailIsDirty, let journal = durable.journal else { return }
        try fileSystem.write(
            journal, [UInt8](repeating: 0, count: durable.writtenEnd - durable.syncedLength),
            at: durable.syncedLength)
        try fileSystem.sync(journal)
        durable.writtenEnd = durable.syncedLength
    }
}
