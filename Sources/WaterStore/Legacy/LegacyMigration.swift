import WaterCore
import WaterLog
import WaterSystem

/// Moves a data directory of format 1 (a journal per archive) to format 2 (one shared log),
/// when it is first opened.
///
/// Archive by archive: each is read as format 1 read it (its snapshot and journals), its whole
/// state written as a snapshot of the new format standing at the start of the (empty) log,
/// and only then are its journals removed. A crash in between leaves the new snapshot beside
/// old journals, which the next run recognises (the new snapshot's magic) and finishes. When
/// every archive is done the log is made and the format file says 2: until then, the next
/// start runs the migration again.
///
/// An archive that does not read is left exactly as it is, and stays protected under format 2
/// (its journals tell the loader why) until `water-server repair` rebuilds it from them.
enum LegacyMigration {
    static func run(_ path: String, fileSystem: any FileSystem, context: ArchiveContext, logger: Logger)
        throws(ArchiveError)
    {
        do {
            for folder in try DataDirectory.archives(in: path, fileSystem: fileSystem) {
                switch folder {
                case DataDirectory.accounts: try migrate(AccountBook.self, folder, path, fileSystem, context, logger)
                case DataDirectory.household: try migrate(TodoList.self, folder, path, fileSystem, context, logger)
                default: try migrate(MemberArchive.self, folder, path, fileSystem, context, logger)
                }
            }
            try fileSystem.createDirectory("\(path)/\(DataDirectory.log)", mode: 0o700)
            try fileSystem.syncDirectory(path)
        } catch {
            throw ArchiveError(error)
        }
        try DataDirectory.finishCreating(path, fileSystem: fileSystem)
        logger.info("data directory moved to the shared log", ["data": path])
    }

    /// Migrates one archive folder. A folder without files has nothing to move (an add a crash
    /// cut short, or damage, which the new format's loader tells apart as the old one did).
    private static func migrate<Model: ArchiveModel>(
        _ type: Model.Type, _ folder: String, _ path: String, _ fileSystem: any FileSystem,
        _ context: ArchiveContext, _ logger: Logger
    ) throws(FileSystemError) {
        let directory = "\(path)/\(folder)"
        let names = try fileSystem.listDirectory(directory)
        let journals = names.filter { ArchiveFiles.generation(ofJournal: $0) != nil || $0.hasSuffix(".tmp") }
        let snapshot = "\(directory)/\(ArchiveFiles.snapshot)"
        if names.contains(ArchiveFiles.snapshot),
            !SnapshotFile.isLegacy(try fileSystem.readFile(snapshot, limit: SnapshotFile.maximumLength))
        {
            // Written by a run that a crash stopped before it removed the journals.
            for name in journals { try fileSystem.remove("\(directory)/\(name)") }
            try fileSystem.syncDirectory(directory)
            return
        }
        guard names.contains(where: { !$0.hasSuffix(".tmp") }) else { return }
        let loaded: LegacyArchiveLoader<Model>.LegacyContents
        do {
            loaded = try LegacyArchiveLoader<Model>(
                fileSystem: fileSystem, directory: directory, context: context, expectation: .existing
            ).load()
        } catch {
            logger.error(
                "archive not migrated", ["archive.path": directory, "reason": error.description, "kept": "as it is"])
            return
        }
        let stamp = SnapshotFile.Stamp(lastSequence: loaded.lastSequence, position: .start)
        let file = SnapshotFile.encode(
            body: loaded.model.encodeSnapshot(lastSequence: loaded.lastSequence, journalGeneration: 0),
            version: Model.snapshotVersion, kind: Model.kind, stamp: stamp)
        try fileSystem.replaceFile(snapshot, with: file, mode: 0o600)
        for name in journals { try fileSystem.remove("\(directory)/\(name)") }
        try fileSystem.syncDirectory(directory)
        logger.info(
            "archive migrated",
            ["archive.path": directory, "records": "\(loaded.lastSequence)", "journals": "\(journals.count)"])
    }
}
