import Dispatch
import Synchronization
import WaterLog

/// One archive in use: its state in memory and its files.
///
/// Writes go through ``commit(_:completion:)``: the caller's `decide` runs on the latest state
/// under this archive's lock (so one archive's writes are serialised), the mutations it returns
/// are applied at once in memory and handed to the ``GroupCommitter``, and `completion` runs
/// once they are durable. Readers see the latest state.
///
/// An archive that failed to load is in protected mode: its files are left exactly as they are,
/// and reads and writes fail with the reason.
public final class Archive<Model: ArchiveModel>: Sendable {
    public let directory: String
    let fileSystem: any FileSystem
    let logger: Logger
    let committer: GroupCommitter
    let compactionThreshold: Int

    /// What callers see and change.
    private struct Latest {
        var model: Model
        var nextSequence: UInt64
        /// Set when the archive could not be loaded; never cleared while the process runs.
        var protection: ArchiveError?
        /// Bumped when a write fails: everything submitted before is void.
        var epoch: UInt64 = 0
        /// Mutations applied to `model` but not yet durable, oldest first.
        var unsynced: [(sequence: UInt64, mutation: Model.Mutation)] = []
    }

    /// What the committer and compaction own: the durable state and the open journal.
    struct Durable {
        var model: Model
        var sequence: UInt64
        var journal: FileHandleID?
        var generation: UInt64
        /// Bytes written to the journal, synced or not.
        var length: Int
        /// Bytes of the journal known to be on disk.
        var syncedLength: Int
        /// A failed write left bytes past `syncedLength` that could not be cut off yet.
        var tailIsDirty = false
        var snapshotLength: Int
        /// The snapshot is in an older format, or a compaction was cut short: compact at the
        /// first write.
        var isCompactionDue = false
        var isCompacting = false
        var compactions = 0
        var lastCompactionUnixMilliseconds: Int64?
        var lastCompactionError: ArchiveError?
    }

    private let latest: Mutex<Latest>
    let durable: Mutex<Durable>

    init(directory: String, fileSystem: any FileSystem, context: ArchiveContext, committer: GroupCommitter,
         logger: Logger, compactionThreshold: Int)
    {
        self.directory = directory
        self.fileSystem = fileSystem
        self.committer = committer
        self.logger = logger
        self.compactionThreshold = compactionThreshold
        let empty = Model(context: context)
        var latest = Latest(model: empty, nextSequence: 1)
        var durable = Durable(model: empty, sequence: 0, journal: nil, generation: 0, length: 0, syncedLength: 0,
                              snapshotLength: 0)
        do {
            let loaded = try ArchiveLoader<Model>(fileSystem: fileSystem, directory: directory, context: context).load()
            latest.model = loaded.model
            latest.nextSequence = loaded.lastSequence + 1
            durable = try Self.prepareForWriting(loaded, directory: directory, fileSystem: fileSystem, logger: logger)
        } catch {
            logger.error("archive protected", ["archive.path": directory, "reason": error.description])
            latest.protection = ArchiveError(.protected, "\(directory) could not be read (\(error.message)); "
                + "it is kept untouched and writes are refused until it is repaired")
        }
        self.latest = Mutex(latest)
        self.durable = Mutex(durable)
    }

    /// After a successful load, and only then: cut a torn tail, remove leftovers, and open the
    /// journal to append to (a new one when there is none past the snapshot).
    private static func prepareForWriting(_ loaded: ArchiveLoader<Model>.LoadedArchive, directory: String,
                                          fileSystem: any FileSystem, logger: Logger) throws(ArchiveError) -> Durable
    {
        do {
            for name in loaded.temporaryFiles + loaded.obsoleteJournals {
                try fileSystem.remove("\(directory)/\(name)")
            }
            var durable = Durable(model: loaded.model, sequence: loaded.lastSequence, journal: nil,
                                  generation: loaded.snapshotGeneration, length: 0, syncedLength: 0,
                                  snapshotLength: loaded.snapshotLength)
            if let current = loaded.currentJournal {
                let handle = try fileSystem.open("\(directory)/\(ArchiveFiles.journal(generation: current.generation))",
                                                 create: false, mode: 0o600)
                if current.validLength < current.fileLength {
                    logger.warning("journal tail cut", ["archive.path": directory,
                                                        "bytes": "\(current.fileLength - current.validLength)"])
                    try fileSystem.truncate(handle, to: current.validLength)
                    try fileSystem.sync(handle)
                }
                (durable.journal, durable.generation) = (handle, current.generation)
                durable.length = current.validLength
            } else {
                durable.generation += 1
                durable.journal = try startJournal(generation: durable.generation, directory: directory,
                                                   fileSystem: fileSystem)
                durable.length = JournalFile.headerLength
            }
            durable.syncedLength = durable.length
            durable.isCompactionDue = loaded.needsMigration || loaded.liveJournalCount > 1
            return durable
        } catch {
            throw ArchiveError(error)
        }
    }

    /// Creates journal `generation` durably (temp file, sync, rename, sync the directory) and
    /// opens it for appending.
    static func startJournal(generation: UInt64, directory: String, fileSystem: any FileSystem)
        throws(FileSystemError) -> FileHandleID
    {
        let path = "\(directory)/\(ArchiveFiles.journal(generation: generation))"
        try fileSystem.replaceFile(path, with: JournalFile.header(kind: Model.kind, generation: generation), mode: 0o600)
        return try fileSystem.open(path, create: false, mode: 0o600)
    }

    // MARK: Reading and writing

    /// Why the archive refuses reads and writes, or nil when it is healthy.
    public var protection: ArchiveError? { latest.withLock { $0.protection } }

    /// Reads the latest state.
    /// - Throws: `.protected` when the archive could not be loaded.
    public func read<T>(_ body: (Model) throws -> T) throws -> T {
        try latest.withLock { latest in
            if let protection = latest.protection { throw protection }
            return try body(latest.model)
        }
    }

    /// Decides on the latest state, applies what `decide` returns, and journals it.
    ///
    /// `decide` runs under this archive's lock: keep it to validation, and never wait in it
    /// for another commit (the thread committing may need this lock). `result` then runs on
    /// the state after the mutations, still under the lock, to build the reply. When `decide`
    /// returns no mutations (a replayed request), `completion` still waits until everything
    /// submitted before is durable, so a reply never reports state that could still be lost.
    /// - Throws: what `decide` throws, or `.protected`; nothing is written then.
    public func commit<Value: Sendable>(
        _ decide: (Model) throws -> [Model.Mutation],
        result: (Model) -> Value,
        completion: @escaping @Sendable (Result<Value, ArchiveError>) -> Void
    ) throws {
        let (item, value) = try latest.withLock { latest -> (CommitItem, Value) in
            if let protection = latest.protection { throw protection }
            let mutations = try decide(latest.model)
            var records: [[UInt8]] = []
            for mutation in mutations {
                latest.model.apply(mutation)
                records.append(Model.encodeRecord(mutation, sequence: latest.nextSequence))
                latest.unsynced.append((latest.nextSequence, mutation))
                latest.nextSequence += 1
            }
            let item = CommitItem(target: self, epoch: latest.epoch, records: records,
                                  lastSequence: latest.nextSequence - 1) { _ in }
            return (item, result(latest.model))
        }
        committer.submit(CommitItem(target: item.target, epoch: item.epoch, records: item.records,
                                    lastSequence: item.lastSequence) { completion($0.map { value }) })
    }

    /// ``commit(_:result:completion:)`` for a change whose reply needs nothing back.
    public func commit(_ decide: (Model) throws -> [Model.Mutation],
                       completion: @escaping @Sendable (Result<Void, ArchiveError>) -> Void) throws
    {
        try commit(decide, result: { _ in () }, completion: completion)
    }

    /// Commits and waits until the mutations are durable. Never call it on Swift's
    /// cooperative thread pool.
    @discardableResult
    public func commitAndWait<Value: Sendable>(_ decide: (Model) throws -> [Model.Mutation],
                                               result: (Model) -> Value) throws -> Value
    {
        let done = ResultWaiter<Value>()
        try commit(decide, result: result) { done.signal($0) }
        return try done.wait().get()
    }

    public func commitAndWait(_ decide: (Model) throws -> [Model.Mutation]) throws {
        try commitAndWait(decide, result: { _ in () })
    }

    /// Closes the journal; later writes fail (``FileArchiveStore/close()``).
    func close() {
        latest.withLock { $0.protection = ArchiveError(.ioFailure, "\(directory) is closed") }
        durable.withLock { durable in
            if let journal = durable.journal { fileSystem.close(journal) }
            durable.journal = nil
        }
    }

    // MARK: Called by the committer

    func isCurrent(epoch: UInt64) -> Bool {
        latest.withLock { $0.epoch == epoch && $0.protection == nil }
    }

    /// Appends one frame to the journal, not yet synced, and returns the handle to sync.
    func append(_ frame: [UInt8]) throws(ArchiveError) -> FileHandleID {
        try durable.withLock { (durable) throws(ArchiveError) -> FileHandleID in
            guard let journal = durable.journal else { throw ArchiveError(.ioFailure, "\(directory) has no open journal") }
            do throws(FileSystemError) {
                if durable.tailIsDirty {
                    try cutBack(journal, to: durable.syncedLength)
                    durable.tailIsDirty = false
                }
                try fileSystem.write(journal, frame, at: durable.length)
            } catch {
                durable.tailIsDirty = true
                throw ArchiveError(error)
            }
            durable.length += frame.count
            return journal
        }
    }

    /// Everything submitted up to `sequence` is on disk: fold it into the durable state.
    func markDurable(through sequence: UInt64) {
        let synced = latest.withLock { latest in
            let count = latest.unsynced.prefix { $0.sequence <= sequence }.count
            defer { latest.unsynced.removeFirst(count) }
            return Array(latest.unsynced.prefix(count))
        }
        durable.withLock { durable in
            for (_, mutation) in synced { durable.model.apply(mutation) }
            durable.sequence = max(durable.sequence, sequence)
            durable.syncedLength = durable.length
        }
    }

    /// A write or sync failed: cut the journal back to what is known to be on disk, forget
    /// everything not yet durable, and void what was submitted on top of it. When even the
    /// cut fails, the next write tries it again first and fails while it cannot: nothing is
    /// ever appended after bytes of unknown state.
    func rollBack(_ error: ArchiveError) {
        let (model, sequence) = durable.withLock { durable -> (Model, UInt64) in
            if let journal = durable.journal {
                do {
                    try cutBack(journal, to: durable.syncedLength)
                    durable.tailIsDirty = false
                } catch {
                    durable.tailIsDirty = true
                }
            }
            durable.length = durable.syncedLength
            return (durable.model, durable.sequence)
        }
        latest.withLock { latest in
            latest.model = model
            latest.nextSequence = sequence + 1
            latest.unsynced.removeAll()
            latest.epoch += 1
        }
        logger.error("write failed", ["archive.path": directory, "error": error.description])
    }

    private func cutBack(_ journal: FileHandleID, to length: Int) throws(FileSystemError) {
        try fileSystem.truncate(journal, to: length)
        try fileSystem.sync(journal)
    }
}

/// Waits for one result on a thread that may block.
final class ResultWaiter<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, ArchiveError>?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func signal(_ result: Result<Value, ArchiveError>) {
        self.result.withLock { $0 = result }
        semaphore.signal()
    }

    func wait() -> Result<Value, ArchiveError> {
        semaphore.wait()
        return result.withLock { $0! }
    }
}
