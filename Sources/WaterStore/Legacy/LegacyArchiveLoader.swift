import Glibc
import WaterSystem

/// Reads an archive directory of format 1 of the data directory (per-archive journals, before
/// the shared log): the snapshot, then every journal after it, in order. Kept to migrate such
/// directories (``LegacyMigration``) and to repair an archive that could not be migrated.
///
/// Reading changes nothing on disk. What it finds is returned as a ``LegacyContents``; the
/// caller cuts a torn tail and removes obsolete files only after the whole load succeeded,
/// so an archive that fails to load stays byte for byte as it was.
///
/// What it refuses (the archive then goes protected), beyond a file that fails its own checks:
/// - a journal missing from the chain: the snapshot folds generation G, so journal G+1 must
///   exist; generations must follow one another; a sealed journal's successor must exist;
/// - records that do not follow one another: a journal whose header says it starts after a
///   record other than the last one before it, or a gap or repeat inside a journal;
/// - a torn write anywhere but at the end of the newest journal;
/// - an archive that should exist (``Expectation/existing``) with no files at all.
struct LegacyArchiveLoader<Model: ArchiveModel> {
    let fileSystem: any FileSystem
    let directory: String
    let context: ArchiveContext
    let expectation: Expectation

    typealias Expectation = ArchiveExpectation

    /// A format-1 archive as read (its journals, not the shared log): what ``LegacyMigration``
    /// moves into the log. The log's own kind is ``ArchiveLoader/LoadedArchive``.
    struct LegacyContents {
        var model: Model
        var lastSequence: UInt64
        /// The generation the snapshot folded in (0 without a snapshot).
        var snapshotGeneration: UInt64
        /// The journal to append to, when one exists past the snapshot.
        var currentJournal: CurrentJournal?
        /// Journals the snapshot already holds: safe to remove.
        var obsoleteJournals: [String]
        var temporaryFiles: [String]
        /// Whether the snapshot is in an older format that the next compaction rewrites.
        var needsMigration: Bool
        /// The snapshot file's size, and its body's before compression.
        var snapshotLength: Int
        var snapshotBodyLength: Int
        /// How many journals follow the snapshot: more than one means sealed ones wait for a
        /// compaction (or one was cut short), which the first write then starts.
        var liveJournalCount = 0
        /// How many records the journals added to the snapshot.
        var journalRecords = 0
        /// A journal whose seal a crash cut short (its successor is still empty): where the
        /// seal goes, and the last record it names.
        var unfinishedSeal: (generation: UInt64, offset: Int, lastSequence: UInt64)?
    }

    struct CurrentJournal {
        var generation: UInt64
        var version: UInt16
        /// Where its valid frames end, and its size.
        var validLength: Int
        var fileLength: Int
        /// A write cut short by a crash: cut off before appending (never acknowledged).
        var tornTail: JournalFile.TornTail?
    }

    func load() throws(ArchiveError) -> LegacyContents {
        let names = try fileSystem.listArchiveDirectory(directory)
        var loaded = LegacyContents(
            model: Model(context: context), lastSequence: 0, snapshotGeneration: 0,
            currentJournal: nil, obsoleteJournals: [], temporaryFiles: [], needsMigration: false,
            snapshotLength: 0, snapshotBodyLength: 0)
        let hasSnapshot = names.contains(ArchiveFiles.snapshot)
        if hasSnapshot { try readSnapshot(into: &loaded) }
        let live = try liveJournals(names, hasSnapshot: hasSnapshot, &loaded)
        try apply(try readNewestFirst(live), to: &loaded)
        guard loaded.model.isValid else {
            throw ArchiveError(
                .corrupt, "\(directory) fails the archive's checks (a value out of range or a repeated id)")
        }
        return loaded
    }

    /// The snapshot, when there is one: the model, its last record and its journal generation.
    private func readSnapshot(into loaded: inout LegacyContents) throws(ArchiveError) {
        let path = "\(directory)/\(ArchiveFiles.snapshot)"
        let file = try fileSystem.readArchiveFile(path, limit: SnapshotFile.maximumLength)
        loaded.snapshotLength = file.count
        let (version, body, _) = try SnapshotFile.decode(
            file, kind: Model.kind,
            versions: Model.snapshotVersions, path: path)
        loaded.snapshotBodyLength = body.count
        (loaded.model, loaded.lastSequence, loaded.snapshotGeneration) =
            try Model.decodeSnapshot(body, version: version, context: context)
        loaded.needsMigration = version != Model.snapshotVersion
    }

    /// The journals after the snapshot, in generation order, with none missing between; the
    /// older ones and the temporary files are noted for removal.
    private func liveJournals(_ names: [String], hasSnapshot: Bool, _ loaded: inout LegacyContents)
        throws(ArchiveError) -> [(UInt64, String)]
    {
        loaded.temporaryFiles = names.filter { $0.hasSuffix(".tmp") }
        let journals = names.compactMap { name in ArchiveFiles.generation(ofJournal: name).map { ($0, name) } }
            .sorted { $0.0 < $1.0 }
        loaded.obsoleteJournals = journals.filter { $0.0 <= loaded.snapshotGeneration }.map(\.1)
        let live = journals.filter { $0.0 > loaded.snapshotGeneration }
        loaded.liveJournalCount = live.count

        if live.isEmpty, hasSnapshot || expectation == .existing {
            let missing = ArchiveFiles.journal(generation: loaded.snapshotGeneration + 1)
            throw ArchiveError(
                .corrupt,
                hasSnapshot
                    ? "\(directory)/\(missing) is missing: the snapshot says the archive goes on there"
                    : "\(directory) has no snapshot and no journal: its files are missing")
        }
        for (index, (generation, _)) in live.enumerated() {
            let expected = loaded.snapshotGeneration + UInt64(index) + 1
            guard generation == expected else {
                throw ArchiveError(
                    .corrupt,
                    "\(directory)/\(ArchiveFiles.journal(generation: expected)) is missing "
                        + "(the journals go on at generation \(generation))")
            }
        }
        return live
    }

    private typealias JournalRead = (
        generation: UInt64, path: String, contents: JournalFile.Contents, fileLength: Int
    )

    private func readNewestFirst(_ live: [(UInt64, String)]) throws(ArchiveError) -> [JournalRead] {
        // Read newest first: a server appending meanwhile changes an older journal only by its
        // seal, which is on disk before the newer one takes a record, so a reader beside a
        // running server (check, backup) never sees records after an older journal it read
        // unsealed.
        var contents: [JournalRead] = []
        for (generation, name) in live.reversed() {
            let path = "\(directory)/\(name)"
            let bytes = try fileSystem.readArchiveFile(path, limit: JournalFile.maximumFileLength)
            let journal = try JournalFile.read(bytes, kind: Model.kind, path: path)
            guard journal.generation == generation else {
                throw ArchiveError(.corrupt, "\(path) says it is generation \(journal.generation)")
            }
            contents.insert((generation, path, journal, bytes.count), at: 0)
        }
        return contents
    }

    /// Applies the journals' records in order, checking that each journal goes on where the one
    /// before ended and that only the newest is unfinished.
    private func apply(_ contents: [JournalRead], to loaded: inout LegacyContents) throws(ArchiveError) {
        // The one state a crash may leave between two journals: the newest was made, still
        // empty, and the seal of the one before did not reach the disk whole.
        let newestIsUnused = contents.last.map { $0.contents.records.isEmpty && $0.contents.tornTail == nil } ?? false
        for (index, (generation, path, journal, fileLength)) in contents.enumerated() {
            let isNewest = index == contents.count - 1
            let mayLackSeal = index == contents.count - 2 && newestIsUnused
            if let startsAfter = journal.startsAfter, startsAfter != loaded.lastSequence {
                throw ArchiveError(
                    .corrupt,
                    "\(path) starts after record \(startsAfter), but the records before it "
                        + "end at \(loaded.lastSequence): "
                        + (startsAfter > loaded.lastSequence ? "records are missing" : "records repeat"))
            }
            // Only the journal being appended to can end in a torn write; an older one was
            // complete and synced before the next was started.
            if let tail = journal.tornTail, !isNewest, !(mayLackSeal && tail.length <= JournalFile.sealLength) {
                throw ArchiveError(
                    .corrupt, "\(path) is damaged at byte \(tail.offset), and a newer journal follows it")
            }
            for record in journal.records {
                let (mutation, sequence) = try Model.decodeRecord(record, context: context)
                // Version 1 journals may repeat what a snapshot folded in; version 2 never does.
                if journal.version == 1, sequence <= loaded.lastSequence { continue }
                guard sequence == loaded.lastSequence + 1 else {
                    throw ArchiveError(
                        .corrupt,
                        sequence <= loaded.lastSequence
                            ? "\(path) repeats record \(sequence) after record \(loaded.lastSequence)"
                            : "\(path) skips from record \(loaded.lastSequence) to \(sequence)")
                }
                loaded.model.apply(mutation)
                loaded.lastSequence = sequence
                loaded.journalRecords += 1
            }
            if let seal = journal.seal {
                guard seal.nextGeneration == generation + 1, seal.lastSequence == loaded.lastSequence else {
                    throw ArchiveError(.corrupt, "\(path) has a seal that does not match its records")
                }
                if isNewest {
                    throw ArchiveError(
                        .corrupt,
                        "\(directory)/\(ArchiveFiles.journal(generation: generation + 1)) is "
                            + "missing: \(ArchiveFiles.journal(generation: generation)) says the archive goes on there")
                }
            } else if !isNewest, journal.version >= 2 {
                guard mayLackSeal else {
                    throw ArchiveError(
                        .corrupt,
                        "\(path) ends at byte \(journal.validLength) without the seal "
                            + "that every journal but the newest has: records are missing from its end")
                }
                loaded.unfinishedSeal = (generation, journal.validLength, loaded.lastSequence)
            }
            if isNewest {
                loaded.currentJournal = CurrentJournal(
                    generation: generation, version: journal.version,
                    validLength: journal.validLength, fileLength: fileLength,
                    tornTail: journal.tornTail)
            }
        }
    }

}
