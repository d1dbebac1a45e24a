import CLinux
import WaterCore
import WaterLog
import WaterSync
import WaterSystem

/// Tunables of the store, with the defaults a household needs.
public struct StoreOptions: Sendable {
    /// The fewest bytes of the log an archive's chunks take before a snapshot folds them. A
    /// snapshot is written once they add up to this or the snapshot's body (its size before
    /// compression), whichever is larger, so rewriting the snapshot (encoding and compressing
    /// that body) costs about what was appended since the last one, however well the body
    /// compresses.
    public var compactionThreshold = 8 * 1024
    /// The length of a segment of the shared log (made full of zeros before it is written, so
    /// the space is taken up front).
    public var logSegmentLength = 1 << 20
    /// How many segments the log may grow to before the archives holding the oldest one are
    /// snapshotted so that it can go.
    public var maximumLogSegments = 8
    /// A new member's time zone until they choose one.
    public var defaultTimeZone = MemberTimeZone.utc
    /// Where the zones named in the archives are found: the system's (`ZoneInfo.system`, which
    /// the programs hand in), or a test's.
    public var timeZones: any TimeZoneSource
    /// Told after each compaction, from the compaction queue.
    public var compacted: @Sendable () -> Void = {}
    /// Whether a path with no data directory is made into a new, empty one. `init` and the
    /// tools may; `serve` may not, or a mistyped path or a disk not yet mounted would be served
    /// as a new household with a new certificate.
    public var mayCreate = true

    public init(timeZones: any TimeZoneSource) {
        self.timeZones = timeZones
    }
}

/// Every archive of a data directory: the accounts, the household's todo list and one archive
/// per member, each a snapshot in its folder with its later records in the one shared log
/// (`DATA/log/`), written through one ``GroupCommitter``. Members' archives are loaded when
/// first used, so a server starts in milliseconds however long the household's history.
public final class FileArchiveStore: Sendable {
    public let path: String
    public let accounts: Archive<AccountBook>
    public let household: Archive<TodoList>
    public let committer: GroupCommitter
    let log: SharedLog
    private let fileSystem: any FileSystem
    private let options: StoreOptions
    let logger: Logger
    /// Every member's archive (nil until first used, or once dropped idle) and whether it was
    /// used since the last sweep (``dropIdleMembers()``, which owns the dropping).
    let members: Locked<[UInt64: MemberSlot]>
    /// How many idle archives ``dropIdleMembers()`` dropped since the store opened.
    let droppedCount = Locked(0)
    private let context: ArchiveContext
    private let lock: FileHandleID

    /// Opens the data directory at `path` (making a new one only when `options.mayCreate`
    /// allows and there is none): moves a directory of format
    /// 1 to the shared log first, reads the log, cuts its torn tail, and loads the accounts and
    /// the household's list. An archive that cannot be read is put in protected mode; the
    /// others load normally.
    /// - Parameter owner: who holds the lock, as a second process will be told.
    /// - Throws: ``ArchiveError`` `.locked`, `.unsupportedVersion` or `.ioFailure` for the
    ///   directory itself; never for one archive.
    public init(
        path: String, fileSystem: any FileSystem = PosixFileSystem(), options: StoreOptions,
        logger: Logger = .silent, owner: String
    ) throws(ArchiveError) {
        let (lock, state) = try DataDirectory.prepare(
            path, fileSystem: fileSystem, owner: owner, mayCreate: options.mayCreate)
        self.lock = lock
        self.path = path
        self.fileSystem = fileSystem
        self.options = options
        self.logger = logger
        let context = ArchiveContext(defaultTimeZone: options.defaultTimeZone, timeZones: options.timeZones)
        self.context = context
        let log: SharedLog
        do throws(ArchiveError) {
            switch state {
            case .new: try DataDirectory.create(path, fileSystem: fileSystem, timeZones: options.timeZones)
            case .legacy: try LegacyMigration.run(path, fileSystem: fileSystem, context: context, logger: logger)
            case .current: break
            }
            log = try Self.openLog(path, fileSystem: fileSystem, options: options, logger: logger)
        } catch {
            fileSystem.close(lock)
            throw error
        }
        self.log = log
        let committer = GroupCommitter(log: log.writer)
        self.committer = committer
        self.accounts = Archive(
            directory: "\(path)/\(DataDirectory.accounts)", key: ArchiveKey.accounts, fileSystem: fileSystem,
            context: context, expectation: .existing, log: log, committer: committer, logger: logger,
            compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        self.household = Archive(
            directory: "\(path)/\(DataDirectory.household)", key: ArchiveKey.household, fileSystem: fileSystem,
            context: context, expectation: .existing, log: log, committer: committer, logger: logger,
            compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        var members: [UInt64: MemberSlot] = [:]
        do {
            for id in try DataDirectory.memberIDs(in: path, fileSystem: fileSystem) { members[id] = MemberSlot() }
        } catch {
            fileSystem.close(lock)
            throw ArchiveError(error)
        }
        self.members = Locked(members)
        log.recycle()
        log.onCompactionWanted { [weak self] keys in self?.compact(keys) }
    }

    /// Reads the shared log, cuts its torn tail, removes what a crash left half made, and opens
    /// it for appending; learns where every archive's snapshot stands.
    private static func openLog(_ path: String, fileSystem: any FileSystem, options: StoreOptions, logger: Logger)
        throws(ArchiveError) -> SharedLog
    {
        let directory = "\(path)/\(DataDirectory.log)"
        do {
            var index = try LogIndex.read(directory, fileSystem: fileSystem)
            for name in index.unusedFiles { try fileSystem.remove("\(directory)/\(name)") }
            if let tail = index.tail {
                let segment = WriteAheadLog.path(directory, tail.generation)
                logger.warning(
                    "log tail cut",
                    [
                        "log.segment": LogSegment.name(generation: tail.generation),
                        "offset": "\(tail.bytes.lowerBound)",
                        "bytes": "\(tail.bytes.count)",
                        "archives": tail.keys.isEmpty
                            ? "unknown" : tail.keys.map(ArchiveKey.folder).joined(separator: ","),
                        "why": "a write a crash cut short; it was never acknowledged",
                    ])
                let handle = try fileSystem.open(segment, create: false, mode: 0o600)
                defer { fileSystem.close(handle) }
                try fileSystem.write(handle, [UInt8](repeating: 0, count: tail.bytes.count), at: tail.bytes.lowerBound)
                try fileSystem.sync(handle)
                index.tail = nil
            }
            for damage in index.damage {
                logger.error("log damaged", ["position": damage.position.description, "why": damage.description])
            }
            return try SharedLog(
                directory: directory, index: index,
                snapshots: try snapshotPositions(path, fileSystem: fileSystem), segmentLength: options.logSegmentLength,
                maximumSegments: options.maximumLogSegments, fileSystem: fileSystem, logger: logger)
        } catch {
            throw ArchiveError(error)
        }
    }

    /// Where each archive's snapshot stands, from the snapshots' headers (each checked against
    /// its checksum, none inflated). One that does not read stands at the start: it holds every
    /// segment, so a repair finds all its records.
    private static func snapshotPositions(_ path: String, fileSystem: any FileSystem) throws(FileSystemError)
        -> [UInt64: LogPosition]
    {
        var positions: [UInt64: LogPosition] = [:]
        for folder in try DataDirectory.archives(in: path, fileSystem: fileSystem) {
            guard let key = ArchiveKey.of(folder: folder) else { continue }
            let file = try? fileSystem.readFile(
                "\(path)/\(folder)/\(ArchiveFiles.snapshot)", limit: SnapshotFile.maximumLength)
            positions[key] = file.flatMap(SnapshotFile.stamp(of:))?.position ?? .start
        }
        return positions
    }

    /// Snapshots the archives `keys` (loading those not loaded yet): the log grew too long and
    /// they hold its oldest segment.
    private func compact(_ keys: [UInt64]) {
        Archive<MemberArchive>.compactionQueue.async { [self] in
            for key in keys {
                switch key {
                case ArchiveKey.accounts: accounts.compact()
                case ArchiveKey.household: household.compact()
                default: member(ArchiveKey.memberID(of: key))?.compact()
                }
            }
        }
    }

    /// The archive of member `id`, or nil when there is none.
    ///
    /// A member the accounts list must have files: a folder without any is damage. A folder the
    /// accounts do not know may be an add that a crash cut short before its first journal (or,
    /// for the store's own tests, a member written without accounts): it reads as empty.
    /// - Important: Not to be called while holding the accounts archive's lock.
    public func member(_ id: UInt64) -> Archive<MemberArchive>? {
        // Loaded already, or no such folder: the usual case, one lock.
        switch members.withLock({ $0.use(id) }) {
        case nil: return nil
        case let loaded??: return loaded
        case .some(nil): break
        }
        let listed = (try? accounts.read { $0.accounts[id] != nil }) ?? true
        return members.withLock { members in
            guard let loaded = members.use(id) else { return nil }
            if let loaded { return loaded }
            let archive = openMember(id, expectation: listed ? .existing : .newOrExisting)
            members[id] = MemberSlot(archive: archive)
            return archive
        }
    }

    private func openMember(_ id: UInt64, expectation: ArchiveExpectation) -> Archive<MemberArchive> {
        let archive = Archive<MemberArchive>(
            directory: "\(path)/\(DataDirectory.users)/\(id)", key: ArchiveKey.member(id), fileSystem: fileSystem,
            context: context, expectation: expectation, log: log, committer: committer, logger: logger,
            compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        // Loading inflates and decodes the whole snapshot: give those buffers back to the
        // system instead of keeping them as the process's high-water mark.
        CLinux_release_free_memory()
        return archive
    }

    /// Where the shared log's end stands: its newest segment, and the byte after its last frame.
    public var logPosition: LogPosition { log.writer.end }

    /// The log's segments in use and their bytes on disk, for `/metrics`.
    public var logSegments: (count: Int, bytes: Int) { log.writer.liveSegmentFigures }

    /// How long snapshots took to write, for `/metrics`.
    public var snapshotDurations: DurationHistograms.Snapshot { log.snapshotDurations.snapshot() }

    public var memberIDs: [UInt64] {
        members.withLock { $0.keys.sorted() }
    }

    /// Creates the empty archive of a new member (its folder and an empty snapshot standing at
    /// the log's end, durably) and returns it, or returns the archive already there: one a
    /// failed add left behind is reused, and so is a folder whose creation a crash cut short.
    public func createMember(_ id: UInt64) throws(ArchiveError) -> Archive<MemberArchive> {
        // All under the members' lock: two threads creating one member at once (its first
        // writes from two connections) would otherwise both write its empty snapshot, the later
        // one stamped past records the earlier one's writes had put in the log already.
        try members.withLock { (members) throws(ArchiveError) -> Archive<MemberArchive> in
            if case let loaded?? = members.use(id), loaded.protection == nil { return loaded }
            let usersPath = "\(path)/\(DataDirectory.users)"
            let folder = "\(usersPath)/\(id)"
            do throws(FileSystemError) {
                try fileSystem.createDirectory(folder, mode: 0o700)
                try fileSystem.syncDirectory(usersPath)
                if !fileSystem.fileExists("\(folder)/\(ArchiveFiles.snapshot)") {
                    let end = log.writer.end
                    try fileSystem.replaceFile(
                        "\(folder)/\(ArchiveFiles.snapshot)",
                        with: DataDirectory.emptySnapshot(MemberArchive.self, context: context, at: end), mode: 0o600)
                    log.created(ArchiveKey.member(id), at: end)
                }
            } catch {
                throw ArchiveError(error)
            }
            // Loaded as an existing member it may have been refused for having no files; read
            // it again as one being created (a protected archive holds nothing open).
            let archive = openMember(id, expectation: .newOrExisting)
            if let protection = archive.protection { throw protection }
            members[id] = MemberSlot(archive: archive)
            return archive
        }
    }

    /// What the running process knows of its archives, for `water-server status`: the ones in
    /// use (loaded), those protected among them, the last compaction, and how many idle archives
    /// were dropped from memory.
    public var loadedStatus:
        (loaded: Int, protected: [String], lastCompaction: (path: String, unixMilliseconds: Int64)?, dropped: Int)
    {
        let loaded: [any AnyArchive] = [accounts, household] + members.withLock { $0.values.compactMap(\.archive) }
        let last = loaded.compactMap { archive in archive.lastCompactionUnixMilliseconds.map { (archive.directory, $0) }
        }
        .max { $0.1 < $1.1 }
        return (
            loaded.count, loaded.filter { $0.protection != nil }.map(\.directory).sorted(), last,
            droppedCount.withLock { $0 }
        )
    }

    /// Every archive this process has in protected mode, with the reason (tests and tools;
    /// `water-server check` reads the files instead, without opening the store). Loads every
    /// member's archive.
    public var protectedArchives: [(path: String, reason: ArchiveError)] {
        let all: [(String, ArchiveError?)] =
            [(accounts.directory, accounts.protection), (household.directory, household.protection)]
            + memberIDs.compactMap { member($0) }.map { ($0.directory, $0.protection) }
        return all.compactMap { path, reason in reason.map { (path, $0) } }.sorted { $0.path < $1.path }
    }

    /// Waits until every write submitted so far is committed or failed, and every compaction
    /// started has finished: for an orderly shutdown and for tests.
    public func flush() {
        committer.flush()
        Archive<MemberArchive>.compactionQueue.sync {}
    }

    /// Snapshots every archive with records in the log (loading those not loaded yet), and
    /// waits for the snapshots: the log's older segments go, and the next start reads little of
    /// it. What a clean shutdown does.
    public func checkpoint() {
        var keys = Set(log.writer.liveKeys)
        if accounts.fileStatus.logBytes > 0 { keys.insert(accounts.key) }
        if household.fileStatus.logBytes > 0 { keys.insert(household.key) }
        let loaded: [Archive<MemberArchive>] = members.withLock { $0.values.compactMap(\.archive) }
        for archive in loaded where archive.fileStatus.logBytes > 0 { keys.insert(archive.key) }
        for key in keys.sorted() {
            switch key {
            case ArchiveKey.accounts: accounts.compact()
            case ArchiveKey.household: household.compact()
            default: member(ArchiveKey.memberID(of: key))?.compact()
            }
        }
        Archive<MemberArchive>.compactionQueue.sync {}
    }

    /// Finishes what was submitted, closes the log and releases the directory's lock. Writes
    /// submitted afterwards fail.
    public func close() {
        flush()
        checkpoint()
        accounts.close()
        household.close()
        for archive in members.withLock({ $0.values.compactMap(\.archive) }) { archive.close() }
        committer.stopWriter()
        log.writer.close()
        fileSystem.close(lock)
    }
}

/// An archive in memory whatever its model (``Archive`` of accounts, household or a member),
/// as the status report sees it.
protocol AnyArchive {
    var directory: String { get }
    var protection: ArchiveError? { get }
    var lastCompactionUnixMilliseconds: Int64? { get }
}

extension Archive: AnyArchive {}
