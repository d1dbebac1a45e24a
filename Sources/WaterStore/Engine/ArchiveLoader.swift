import Glibc

/// Reads an archive directory: the snapshot, then every journal after it, in order.
///
/// Reading changes nothing on disk. What it finds is returned as a ``LoadedArchive``; the
/// caller cuts a torn tail and removes obsolete files only after the whole load succeeded,
/// so an archive that fails to load stays byte for byte as it was.
struct ArchiveLoader<Model: ArchiveModel> {
    let fileSystem: any FileSystem
    let directory: String
    let context: ArchiveContext

    struct LoadedArchive {
        var model: Model
        var lastSequence: UInt64
        /// The generation the snapshot folded in (0 without a snapshot).
        var snapshotGeneration: UInt64
        /// The journal to append to, when one exists past the snapshot, and where its valid
        /// frames end.
        var currentJournal: (generation: UInt64, validLength: Int, fileLength: Int)?
        /// Journals the snapshot already holds: safe to remove.
        var obsoleteJournals: [String]
        var temporaryFiles: [String]
        /// Whether the snapshot is in an older format that the next compaction rewrites.
        var needsMigration: Bool
        /// The snapshot file's size, which compaction compares the journal with.
        var snapshotLength: Int
        /// How many journals follow the snapshot: more than one means a compaction was cut short.
        var liveJournalCount = 0
    }

    func load() throws(ArchiveError) -> LoadedArchive {
        let names: [String]
        do {
            names = try fileSystem.listDirectory(directory)
        } catch {
            throw ArchiveError(error)
        }
        var loaded = LoadedArchive(model: Model(context: context), lastSequence: 0, snapshotGeneration: 0,
                                   currentJournal: nil, obsoleteJournals: [], temporaryFiles: [], needsMigration: false,
                                   snapshotLength: 0)
        if names.contains(ArchiveFiles.snapshot) {
            let path = "\(directory)/\(ArchiveFiles.snapshot)"
            let file = try read(path, limit: SnapshotFile.maximumLength)
            loaded.snapshotLength = file.count
            let (version, body) = try SnapshotFile.decode(file, kind: Model.kind,
                                                          versions: Model.readableSnapshotVersions, path: path)
            (loaded.model, loaded.lastSequence, loaded.snapshotGeneration) =
                try Model.decodeSnapshot(body, version: version, context: context)
            loaded.needsMigration = version != Model.snapshotVersion
        }
        loaded.temporaryFiles = names.filter { $0.hasSuffix(".tmp") }
        let journals = names.compactMap { name in ArchiveFiles.generation(ofJournal: name).map { ($0, name) } }
            .sorted { $0.0 < $1.0 }
        loaded.obsoleteJournals = journals.filter { $0.0 <= loaded.snapshotGeneration }.map(\.1)
        let live = journals.filter { $0.0 > loaded.snapshotGeneration }
        loaded.liveJournalCount = live.count
        for (index, (generation, name)) in live.enumerated() {
            let path = "\(directory)/\(name)"
            let bytes = try read(path, limit: JournalFile.maximumFileLength)
            let contents = try JournalFile.read(bytes, kind: Model.kind, path: path)
            guard contents.generation == generation else {
                throw ArchiveError(.corrupt, "\(path) says it is generation \(contents.generation)")
            }
            let isLast = index == live.count - 1
            // Only the journal being appended to can end in a torn write; an older one was
            // complete and synced before the next was started.
            guard isLast || contents.validLength == bytes.count else {
                throw ArchiveError(.corrupt, "\(path) is damaged at byte \(contents.validLength), and a newer journal follows it")
            }
            for record in contents.records {
                let (mutation, sequence) = try Model.decodeRecord(record)
                if sequence <= loaded.lastSequence { continue }  // already in the snapshot
                guard sequence == loaded.lastSequence + 1 else {
                    throw ArchiveError(.corrupt, "\(path) skips from record \(loaded.lastSequence) to \(sequence)")
                }
                loaded.model.apply(mutation)
                loaded.lastSequence = sequence
            }
            if isLast { loaded.currentJournal = (generation, contents.validLength, bytes.count) }
        }
        guard loaded.model.isValid else {
            throw ArchiveError(.corrupt, "\(directory) fails the archive's checks (a value out of range or a repeated id)")
        }
        return loaded
    }

    private func read(_ path: String, limit: Int) throws(ArchiveError) -> [UInt8] {
        do {
            return try fileSystem.readFile(path, limit: limit)
        } catch where error.errno == EFBIG {
            throw ArchiveError(.tooLarge, "\(path) is larger than the \(limit) bytes any archive file may have")
        } catch {
            throw ArchiveError(error)
        }
    }
}
