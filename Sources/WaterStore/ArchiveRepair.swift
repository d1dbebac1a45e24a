import Glibc
import WaterCore
import WaterSystem

/// Rebuilds a damaged archive from everything in it that still verifies, for
/// `water-server repair` (server stopped).
///
/// What is kept: the snapshot when it verifies, and every record of the archive after it that
/// verifies and decodes, wherever it lies: in the shared log, each chunk whose checksum holds
/// (after damage too); in the journals of an archive still in format 1, each frame that
/// verifies. They are put in sequence order and applied once each. What is dropped is listed:
/// a damaged snapshot, damaged chunks or byte ranges, damage in the log whose owner cannot be
/// told, records missing from the sequence, records that repeat with other contents.
///
/// The rebuilt archive is one snapshot standing at the log's end: nothing of it in the log is
/// read again. The original folder is kept beside the archive, untouched, under
/// `<archive>.damaged-<unix seconds>`, with a copy of every log segment that held its records;
/// the repaired one is written beside it first and swapped in atomically
/// (``PosixFileSystem/exchange(_:_:)``).
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
    /// `path` (of the current format), which the caller has locked.
    public static func repair(
        _ archive: String, in path: String, now unixSeconds: Int64, timeZones: any TimeZoneSource
    ) throws -> Outcome {
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        switch archive {
        case DataDirectory.accounts: return try Rebuild<AccountBook>(archive, path, context).run(now: unixSeconds)
        case DataDirectory.household: return try Rebuild<TodoList>(archive, path, context).run(now: unixSeconds)
        default: return try Rebuild<MemberArchive>(archive, path, context).run(now: unixSeconds)
        }
    }
}

/// One archive's rebuild: salvage, apply in order, write beside, swap.
private struct Rebuild<Model: ArchiveModel> {
    let archive: String
    let directory: String
    let logDirectory: String
    let context: ArchiveContext
    let fileSystem = PosixFileSystem()

    init(_ archive: String, _ dataDirectory: String, _ context: ArchiveContext) {
        (self.archive, self.context) = (archive, context)
        directory = "\(dataDirectory)/\(archive)"
        logDirectory = "\(dataDirectory)/\(DataDirectory.log)"
    }

    private struct Found {
        var sequence: UInt64
        var bytes: ArraySlice<UInt8>
        var mutation: Model.Mutation
        /// Where it was found, for the list of what was dropped.
        var place: String
    }

    func run(now: Int64) throws -> ArchiveRepair.Outcome {
        let names = try fileSystem.listDirectory(directory)
        let index = try LogIndex.read(logDirectory, fileSystem: fileSystem)
        var kept: [String] = []
        var dropped: [String] = []

        var model = Model(context: context)
        var snapshotSequence: UInt64 = 0
        var snapshotPosition = LogPosition.start
        if names.contains(ArchiveFiles.snapshot) {
            do {
                let path = "\(directory)/\(ArchiveFiles.snapshot)"
                let file = try fileSystem.readFile(path, limit: SnapshotFile.maximumLength)
                let (version, body, stamp) = try SnapshotFile.decode(
                    file, kind: Model.kind, versions: Model.snapshotVersions,
                    path: path)
                (model, snapshotSequence, _) = try Model.decodeSnapshot(body, version: version, context: context)
                snapshotPosition = stamp?.position ?? .start
                kept.append("the snapshot: records 1-\(snapshotSequence)")
            } catch {
                dropped.append(
                    "the snapshot, which does not read (\(error)): what it held is lost unless a backup has it")
            }
        }

        let journals = names.filter { ArchiveFiles.generation(ofJournal: $0) != nil }.sorted()
        var damagedReads: [(sequence: UInt64, mutation: Model.Mutation)] = []
        var (found, outOfOrder) =
            try journals.isEmpty
            ? fromLog(index, after: snapshotPosition, &dropped, &damagedReads)
            : fromJournals(journals, snapshotSequence, &dropped)
        if outOfOrder > 0 { kept.append("\(outOfOrder) records that were out of order, put back in order") }

        // In sequence order (the first found first among repeats), each once; note the gaps.
        found = found.enumerated().sorted { ($0.element.sequence, $0.offset) < ($1.element.sequence, $1.offset) }.map(
            \.element)
        var last = snapshotSequence
        var lastBytes: ArraySlice<UInt8>?
        var applied = 0
        var appliedSequences: Set<UInt64> = []
        for record in found {
            if record.sequence == last, let lastBytes {
                if lastBytes != record.bytes {
                    dropped.append(
                        "a second, different record \(last) in \(record.place)"
                            + (model.describe(record.mutation).map { " (\($0))" } ?? ""))
                }
                continue
            }
            if record.sequence > last + 1 {
                dropped.append(
                    record.sequence == last + 2
                        ? "record \(last + 1), which is nowhere to be found"
                        : "records \(last + 1)-\(record.sequence - 1), which are nowhere to be found")
            }
            model.apply(record.mutation)
            (last, lastBytes) = (record.sequence, record.bytes)
            applied += 1
            appliedSequences.insert(record.sequence)
        }
        dropped += describe(damagedReads.filter { !appliedSequences.contains($0.sequence) }, with: model)
        if applied > 0 {
            kept.append(
                "\(applied) records \(journals.isEmpty ? "in the log" : "in its journals"), up to record \(last)")
        }
        guard model.isValid else {
            throw ArchiveRepair.Failure(
                description: "what could be read of \(archive) breaks the archive's checks "
                    + "(a value out of range or a repeated id); nothing was changed")
        }
        // Over a cap (stored before the caps) is kept whole, as loading keeps it: said, never cut.
        kept += ((model as? MemberArchive)?.overCaps ?? []).map {
            "what is over a cap, whole (only writes that would add to it are refused): \($0)"
        }
        let segments = Set((index.chunks[ArchiveKey.of(folder: archive) ?? 0] ?? []).map(\.generation))
        let aside = try replace(with: model, lastSequence: last, at: index.end, keeping: segments.sorted(), now: now)
        return ArchiveRepair.Outcome(archive: archive, keptAside: aside, kept: kept, dropped: dropped)
    }

    /// What the damaged records dropped seemed to be, one line each (at most 20): their bytes
    /// failed the checksum, so this is a reading, never applied, for the admin to know what to
    /// log again by hand.
    private func describe(_ reads: [(sequence: UInt64, mutation: Model.Mutation)], with model: Model) -> [String] {
        let lines = reads.compactMap { read in
            model.describe(read.mutation).map { "record \(read.sequence), damaged, which reads as \($0)" }
        }
        return lines.count <= 20 ? lines : lines.prefix(20) + ["and \(lines.count - 20) more damaged records"]
    }

    /// Every record of the archive's chunks in the log after `position` that verifies; the
    /// records of chunks that do not, as far as they still decode, into `damagedReads`.
    private func fromLog(
        _ index: LogIndex, after position: LogPosition, _ dropped: inout [String],
        _ damagedReads: inout [(sequence: UInt64, mutation: Model.Mutation)]
    ) throws -> (found: [Found], outOfOrder: Int) {
        guard let key = ArchiveKey.of(folder: archive) else { return ([], 0) }
        let chunks = (index.chunks[key] ?? []).filter { $0.frameEnd > position }
        for chunk in chunks where !chunk.verified {
            dropped.append(
                "records \(chunk.firstSequence)-\(chunk.lastSequence) in "
                    + "\(LogPosition(generation: chunk.generation, offset: chunk.bytes.lowerBound)), which are damaged")
            for record in try records(of: chunk) {
                if let (mutation, sequence) = try? Model.decodeRecord(record, context: context) {
                    damagedReads.append((sequence, mutation))
                }
            }
        }
        let lastChunkEnd = chunks.last?.frameEnd ?? position
        for damage in index.damage where damage.position >= position && damage.position >= lastChunkEnd {
            dropped.append("whatever \(damage.description) held of it (the log cannot say whose it was)")
        }
        var found: [Found] = []
        var undecodable = 0
        for chunk in chunks where chunk.verified {
            for record in try records(of: chunk) {
                guard let (mutation, sequence) = try? Model.decodeRecord(record, context: context) else {
                    undecodable += 1
                    continue
                }
                let place = "\(LogPosition(generation: chunk.generation, offset: chunk.bytes.lowerBound))"
                found.append(Found(sequence: sequence, bytes: record, mutation: mutation, place: place))
            }
        }
        if undecodable > 0 { dropped.append("\(undecodable) records in the log that do not decode") }
        return (found, 0)
    }

    /// The records of `chunk` as its lengths delimit them; none when they do not add up.
    private func records(of chunk: LogIndex.Chunk) throws -> [ArraySlice<UInt8>] {
        let bytes = try fileSystem.readFile(
            WriteAheadLog.path(logDirectory, chunk.generation), limit: LogSegment.maximumLength)
        let ranges =
            bytes.withUnsafeBytes { LogFrame.recordRanges(in: UnsafeRawBufferPointer(rebasing: $0[chunk.bytes])) }
            ?? []
        return ranges.map { bytes[(chunk.bytes.lowerBound + $0.lowerBound)..<(chunk.bytes.lowerBound + $0.upperBound)] }
    }

    /// Every record of the journals of an archive still in format 1 whose frame verifies.
    private func fromJournals(_ journals: [String], _ snapshotSequence: UInt64, _ dropped: inout [String]) throws -> (
        found: [Found], outOfOrder: Int
    ) {
        var found: [Found] = []
        var outOfOrder = 0
        for name in journals {
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
                    found.append(Found(sequence: sequence, bytes: record, mutation: mutation, place: name))
                }
            }
            if undecodable > 0 { dropped.append("\(name): \(undecodable) records that do not decode") }
        }
        return (found, outOfOrder)
    }

    /// Writes the rebuilt archive (one snapshot standing at `position` of the log) into a new
    /// folder and swaps it with the damaged one, which is kept under another name with copies
    /// of the log's `segments` that held its records.
    private func replace(
        with model: Model, lastSequence: UInt64, at position: LogPosition, keeping segments: [UInt64], now: Int64
    ) throws -> String {
        let building = "\(directory).repair.tmp"
        if fileSystem.fileExists(building) {
            for name in try fileSystem.listDirectory(building) { try fileSystem.remove("\(building)/\(name)") }
        }
        try fileSystem.createDirectory(building, mode: 0o700)
        let body = model.encodeSnapshot(lastSequence: lastSequence, journalGeneration: position.generation)
        let snapshot = SnapshotFile.encode(
            body: body, version: Model.snapshotVersion, kind: Model.kind,
            stamp: SnapshotFile.Stamp(lastSequence: lastSequence, position: position))
        try fileSystem.replaceFile("\(building)/\(ArchiveFiles.snapshot)", with: snapshot, mode: 0o600)
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
        for generation in segments {
            let name = LogSegment.name(generation: generation)
            let bytes = try fileSystem.readFile("\(logDirectory)/\(name)", limit: LogSegment.maximumLength)
            try fileSystem.replaceFile("\(aside)/log-\(name)", with: bytes, mode: 0o600)
        }
        try fileSystem.syncDirectory(parent)
        return aside
    }
}
