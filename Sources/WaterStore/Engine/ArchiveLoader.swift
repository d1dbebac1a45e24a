import Glibc
import WaterSystem

/// Whether an archive folder without a snapshot is a new archive or one whose files went
/// missing.
enum ArchiveExpectation: Sendable {
    /// The archive is being created: no snapshot yet is an empty archive.
    case newOrExisting
    /// The archive was created before: it must have its snapshot.
    case existing
}

/// Reads one archive: its snapshot, then its chunks in the shared log after the snapshot's
/// position, in log order.
///
/// Reading changes nothing on disk: an archive that fails to load stays byte for byte as it
/// was. What it refuses (the archive then goes protected):
/// - a snapshot that fails its checks, or one of a version this code does not know;
/// - a chunk of its own after the snapshot that fails its checksum, or records that do not
///   follow one another (a gap or a repeat);
/// - damage in the log whose owner cannot be told, after its last record in the log
///   (``LogIndex/problem(for:after:sequence:)``);
/// - the files of format 1 (per-archive journals) that migration could not read;
/// - an archive that should exist (``ArchiveExpectation/existing``) without a snapshot.
struct ArchiveLoader<Model: ArchiveModel> {
    let fileSystem: any FileSystem
    let directory: String
    let key: UInt64
    let context: ArchiveContext
    let expectation: ArchiveExpectation
    /// The shared log as it was read when the store opened.
    let log: LogReader

    /// An archive as read from its snapshot and the shared log, before it becomes an
    /// ``Archive`` (in memory, ``AnyArchive`` to the status report).
    struct LoadedArchive {
        var model: Model
        var lastSequence: UInt64
        /// Where its snapshot stands in the log, and where its last chunk's frame ends.
        var snapshotPosition, position: LogPosition
        /// Whether the snapshot is in an older format that the next compaction rewrites.
        var needsMigration: Bool
        /// The snapshot file's size, and its body's before compression.
        var snapshotLength, snapshotBodyLength: Int
        /// Bytes of the log its chunks after the snapshot take, and how many records they add.
        var logBytes = 0, logRecords = 0
        /// The mutations of those records, oldest first: with the snapshot, the durable state
        /// (``Archive`` keeps them until a snapshot folds them, rather than a second model).
        var replayed: [(sequence: UInt64, mutation: Model.Mutation)] = []
        var temporaryFiles: [String]
    }

    /// An archive's snapshot file, read and checked.
    struct Snapshot {
        var model: Model
        var lastSequence: UInt64
        /// Where it stands in the log.
        var position: LogPosition
        var version: UInt16
        /// The file's size, and its body's before compression.
        var fileLength: Int
        var bodyLength: Int
    }

    func load() throws(ArchiveError) -> LoadedArchive {
        let names = try fileSystem.listArchiveDirectory(directory)
        if names.contains(where: { $0.hasPrefix(ArchiveFiles.journalPrefix) }) {
            throw ArchiveError(
                .corrupt,
                "\(directory) is still in the format of per-archive journals, which could not be read to move it "
                    + "into the shared log")
        }
        var loaded = LoadedArchive(
            model: Model(context: context), lastSequence: 0, snapshotPosition: .start, position: .start,
            needsMigration: false, snapshotLength: 0, snapshotBodyLength: 0,
            temporaryFiles: names.filter { $0.hasSuffix(".tmp") })
        if names.contains(ArchiveFiles.snapshot) {
            let snapshot = try Self.readSnapshot(fileSystem: fileSystem, directory: directory, context: context)
            (loaded.model, loaded.lastSequence) = (snapshot.model, snapshot.lastSequence)
            (loaded.snapshotPosition, loaded.position) = (snapshot.position, snapshot.position)
            (loaded.snapshotLength, loaded.snapshotBodyLength) = (snapshot.fileLength, snapshot.bodyLength)
            loaded.needsMigration = snapshot.version != Model.snapshotVersion
        } else if expectation == .existing {
            throw ArchiveError(.corrupt, "\(directory) has no snapshot: its files are missing")
        }
        if let problem = log.index.problem(for: key, after: loaded.snapshotPosition, sequence: loaded.lastSequence) {
            throw ArchiveError(.corrupt, "\(directory) cannot be read to its end: \(problem)")
        }
        for (chunk, records) in try log.records(of: key, after: loaded.snapshotPosition) {
            var sequence = chunk.firstSequence
            for record in records {
                let (mutation, recorded) = try Model.decodeRecord(record, context: context)
                guard recorded == sequence else {
                    throw ArchiveError(
                        .corrupt, "\(directory)'s record \(sequence) in the log says it is record \(recorded)")
                }
                loaded.model.apply(mutation)
                loaded.replayed.append((sequence, mutation))
                sequence += 1
            }
            loaded.lastSequence = chunk.lastSequence
            loaded.position = chunk.frameEnd
            loaded.logBytes += chunk.bytes.count
            loaded.logRecords += chunk.recordCount
        }
        guard loaded.model.isValid else {
            throw ArchiveError(
                .corrupt, "\(directory) fails the archive's checks (a value out of range or a repeated id)")
        }
        return loaded
    }

    /// Reads the snapshot file in `directory` and checks it: at load, and when a running archive
    /// reads its durable state back (``Archive/readDurableState(_:)``).
    /// - Throws: ``ArchiveError`` for a file that is missing, unreadable, damaged, of a version
    ///   this code does not know, or whose header and body disagree.
    static func readSnapshot(fileSystem: any FileSystem, directory: String, context: ArchiveContext)
        throws(ArchiveError) -> Snapshot
    {
        let path = "\(directory)/\(ArchiveFiles.snapshot)"
        let file = try fileSystem.readArchiveFile(path, limit: SnapshotFile.maximumLength)
        let (version, body, stamp) = try SnapshotFile.decode(
            file, kind: Model.kind, versions: Model.snapshotVersions, path: path)
        guard let stamp else {
            throw ArchiveError(.corrupt, "\(path) is a snapshot of per-archive journals without them")
        }
        let (model, lastSequence, _) = try Model.decodeSnapshot(body, version: version, context: context)
        guard lastSequence == stamp.lastSequence else {
            throw ArchiveError(
                .corrupt, "\(path) says record \(stamp.lastSequence) in its header, \(lastSequence) inside")
        }
        return Snapshot(
            model: model, lastSequence: lastSequence, position: stamp.position, version: version,
            fileLength: file.count, bodyLength: body.count)
    }
}

/// Reads archives' chunks out of the shared log, as a ``LogIndex`` found them.
struct LogReader: Sendable {
    let directory: String
    let fileSystem: any FileSystem
    let index: LogIndex

    /// `key`'s verified chunks after `position`, each with its records, in log order; each
    /// segment file is read once.
    func records(of key: UInt64, after position: LogPosition) throws(ArchiveError) -> [(
        chunk: LogIndex.Chunk, records: [ArraySlice<UInt8>]
    )] {
        var segment: (generation: UInt64, bytes: [UInt8])?
        var found: [(LogIndex.Chunk, [ArraySlice<UInt8>])] = []
        for chunk in index.chunks[key] ?? [] where chunk.frameEnd > position && chunk.verified {
            if segment?.generation != chunk.generation {
                let path = WriteAheadLog.path(directory, chunk.generation)
                do {
                    segment = (chunk.generation, try fileSystem.readFile(path, limit: LogSegment.maximumLength))
                } catch  where error.errno == ENOENT {
                    throw ArchiveError(.vanished, "\(path) was removed while it was read")
                } catch {
                    throw ArchiveError(error)
                }
            }
            let bytes = segment!.bytes
            guard chunk.bytes.upperBound <= bytes.count,
                bytes.withUnsafeBytes({ Checksum.crc32(UnsafeRawBufferPointer(rebasing: $0[chunk.bytes])) })
                    == chunk.crc,
                let ranges = bytes.withUnsafeBytes({
                    LogFrame.recordRanges(in: UnsafeRawBufferPointer(rebasing: $0[chunk.bytes]))
                }),
                ranges.count == chunk.recordCount
            else {
                throw ArchiveError(
                    .vanished, "\(WriteAheadLog.path(directory, chunk.generation)) changed while it was read")
            }
            found.append(
                (
                    chunk,
                    ranges.map {
                        bytes[(chunk.bytes.lowerBound + $0.lowerBound)..<(chunk.bytes.lowerBound + $0.upperBound)]
                    }
                ))
        }
        return found
    }
}

extension FileSystem {
    /// The names in an archive's directory; a failure is the archive's I/O failure.
    func listArchiveDirectory(_ directory: String) throws(ArchiveError) -> [String] {
        do {
            return try listDirectory(directory)
        } catch {
            throw ArchiveError(error)
        }
    }

    /// One file of an archive (a snapshot, a journal), at most `limit` bytes: a larger one is
    /// refused unread, and one a running server's compaction removed meanwhile is `.vanished`.
    func readArchiveFile(_ path: String, limit: Int) throws(ArchiveError) -> [UInt8] {
        do {
            return try readFile(path, limit: limit)
        } catch  where error.errno == EFBIG {
            throw ArchiveError(.tooLarge, "\(path) is larger than the \(limit) bytes any archive file may have")
        } catch  where error.errno == ENOENT {
            throw ArchiveError(.vanished, "\(path) was removed while it was read")
        } catch {
            throw ArchiveError(error)
        }
    }
}
