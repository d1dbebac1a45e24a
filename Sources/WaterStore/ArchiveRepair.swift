import Glibc
import WaterCore

/// Rebuilds a damaged archive from everything in it that still verifies, for
/// `water-server repair` (server stopped).
///
/// What is kept: the snapshot when it verifies, and every journal record whose frame verifies
/// and that decodes, wherever it lies (after a damaged frame too, and in any journal), put in
/// sequence order and applied once each. What is dropped is listed: a damaged snapshot,
/// damaged byte ranges, records missing from the sequence, records that repeat with other
/// contents. The original folder is kept beside the archive, untouched, under
/// `<archive>.damaged-<unix seconds>`; the repaired one is written beside it first and swapped
/// in atomically (``PosixFileSystem/exchange(_:_:)``).
public enum ArchiveRepair {
    public struct Outcome: Sendable {
        /// The archive, relative to the data directory.
        public var archive: String
        /// Where the original files are kept.
        public var keptAside: String
        /// One line for each thing kept, and for each thing dropped.
        public var kept: [String]
        public var dropped: [String]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Repairs `archive` (`accounts`, `household` or `users/<id>`) of the data directory at
    /// `path`, which the caller has locked.
    public static func repair(_ archive: String, in path: String, now unixSeconds: Int64) throws -> Outcome {
        let directory = "\(path)/\(archive)"
        let context = ArchiveContext(defaultTimeZone: .utc)
        switch archive {
        case DataDirectory.accounts: return try Rebuild<AccountBook>(archive, directory, context).run(now: unixSeconds)
        case DataDirectory.household: return try Rebuild<TodoList>(archive, directory, context).run(now: unixSeconds)
        default: return try Rebuild<MemberArchive>(archive, directory, context).run(now: unixSeconds)
        }
    }
}

/// One archive's rebuild: salvage, apply in order, write beside, swap.
private struct Rebuild<Model: ArchiveModel> {
    let archive: String
    let directory: String
    let context: ArchiveContext
    let fileSystem = PosixFileSystem()

    init(_ archive: String, _ directory: String, _ context: ArchiveContext) {
        (self.archive, self.directory, self.context) = (archive, directory, context)
    }

    private struct Found {
        var sequence: UInt64
        var bytes: ArraySlice<UInt8>
        var mutation: Model.Mutation
        var journal: String
    }

    func run(now: Int64) throws -> ArchiveRepair.Outcome {
        let names = try fileSystem.listDirectory(directory)
        var kept: [String] = []
        var dropped: [String] = []

        var model = Model(context: context)
        var snapshotSequence: UInt64 = 0
        var highestGeneration: UInt64 = 0
        if names.contains(ArchiveFiles.snapshot) {
            do {
                let path = "\(directory)/\(ArchiveFiles.snapshot)"
                let file = try fileSystem.readFile(path, limit: SnapshotFile.maximumLength)
                let (version, body) = try SnapshotFile.decode(
                    file, kind: Model.kind, versions: Model.readableSnapshotVersions,
                    path: path)
                (model, snapshotSequence, highestGeneration) = try Model.decodeSnapshot(
                    body, version: version,
                    context: context)
                kept.append("the snapshot: records 1-\(snapshotSequence)")
            } catch {
                dropped.append(
                    "the snapshot, which does not read (\(error)): what it held is lost unless a backup has it")
            }
        }

        // Every record that verifies, from every journal; the snapshot's own are not needed.
        var found: [Found] = []
        var outOfOrder = 0
        for name in names.filter({ ArchiveFiles.generation(ofJournal: $0) != nil }).sorted() {
            highestGeneration = max(highestGeneration, ArchiveFiles.generation(ofJournal: name)!)
            let bytes = try fileSystem.readFile("\(directory)/\(name)", limit: JournalFile.maximumFileLength)
            let salvage = JournalFile.salvage(bytes, path: name)
            for range in salvage.damaged {
                dropped.append("\(name): \(range.count) damaged bytes at \(range.lowerBound)-\(range.upperBound - 1)")
            }
            if let cut = salvage.cutShort {
                dropped.append(
                    "\(name): cut short at byte \(cut.at) of \(cut.of); whatever was written after that is gone")
            }
            if salvage.malformedFrames > 0 { dropped.append("\(name): \(salvage.malformedFrames) malformed frames") }
            var undecodable = 0
            var previous: UInt64 = 0
            for record in salvage.records {
                guard let (mutation, sequence) = try? Model.decodeRecord(record, context: context) else {
                    undecodable += 1
                    continue
                }
                if sequence < previous { outOfOrder += 1 }
                previous = sequence
                if sequence > snapshotSequence {
                    found.append(Found(sequence: sequence, bytes: record, mutation: mutation, journal: name))
                }
            }
            if undecodable > 0 { dropped.append("\(name): \(undecodable) records that do not decode") }
        }
        if outOfOrder > 0 { kept.append("\(outOfOrder) records that were out of order, put back in order") }

        // In sequence order (the first found first among repeats), each once; note the gaps.
        found = found.enumerated().sorted { ($0.element.sequence, $0.offset) < ($1.element.sequence, $1.offset) }.map(
            \.element)
        var last = snapshotSequence
        var lastBytes: ArraySlice<UInt8>?
        var applied = 0
        for record in found {
            if record.sequence == last, let lastBytes {
                if lastBytes != record.bytes {
                    dropped.append("a second, different record \(last) in \(record.journal)")
                }
                continue
            }
            if record.sequence > last + 1 {
                dropped.append(
                    record.sequence == last + 2
                        ? "record \(last + 1), which is in no journal"
                        : "records \(last + 1)-\(record.sequence - 1), which are in no journal")
            }
            model.apply(record.mutation)
            (last, lastBytes) = (record.sequence, record.bytes)
            applied += 1
        }
        if applied > 0 { kept.append("\(applied) journal records, up to record \(last)") }
        guard model.isValid else {
            throw ArchiveRepair.Failure(
                description: "what could be read of \(archive) breaks the archive's checks "
                    + "(a value out of range or a repeated id); nothing was changed")
        }
        let aside = try replace(with: model, lastSequence: last, generation: highestGeneration + 1, now: now)
        return ArchiveRepair.Outcome(archive: archive, keptAside: aside, kept: kept, dropped: dropped)
    }

    /// Writes the rebuilt archive (a snapshot and an empty journal after it) into a new folder
    /// and swaps it with the damaged one, which is kept under another name.
    private func replace(with model: Model, lastSequence: UInt64, generation: UInt64, now: Int64) throws -> String {
        let building = "\(directory).repair.tmp"
        if fileSystem.fileExists(building) {
            for name in try fileSystem.listDirectory(building) { try fileSystem.remove("\(building)/\(name)") }
        }
        try fileSystem.createDirectory(building, mode: 0o700)
        let body = model.encodeSnapshot(lastSequence: lastSequence, journalGeneration: generation)
        let snapshot = SnapshotFile.encode(body: body, version: Model.snapshotVersion, kind: Model.kind)
        try fileSystem.replaceFile("\(building)/\(ArchiveFiles.snapshot)", with: snapshot, mode: 0o600)
        let length = Archive<Model>.segmentLength(
            compactionThreshold: StoreOptions().compactionThreshold,
            snapshotLength: snapshot.count, frameLength: 0)
        try fileSystem.replaceFile(
            "\(building)/\(ArchiveFiles.journal(generation: generation + 1))",
            with: JournalFile.segment(
                kind: Model.kind, generation: generation + 1,
                startsAfter: lastSequence, length: length),
            mode: 0o600)
        let parent = PosixFileSystem.parent(of: directory)
        try fileSystem.syncDirectory(parent)
        try fileSystem.exchange(building, directory)
        var aside = "\(directory).damaged-\(now)"
        var attempt = 1
        while fileSystem.fileExists(aside) {
            attempt += 1
            aside = "\(directory).damaged-\(now)-\(attempt)"
        }
        try fileSystem.rename(building, to: aside)
        try fileSystem.syncDirectory(parent)
        return aside
    }
}
