import CLinux
import WaterCore
import WaterLog
import WaterSync
import WaterZoneInfo

/// Tunables of the store, with the defaults a household needs.
public struct StoreOptions: Sendable {
    /// The smallest journal segment, and the fewest sealed journal bytes a compaction folds. A
    /// segment is made this long or half the snapshot file, whichever is larger, so the space
    /// reserved on disk stays small next to the archive. Full segments are sealed and folded
    /// into a new snapshot once they add up to half the snapshot's body (its size before
    /// compression), so rewriting the snapshot (encoding and compressing that body) costs
    /// about twice what was appended since the last one, however well the body compresses.
    public var compactionThreshold = 8 * 1024
    /// A new member's time zone until they choose one.
    public var defaultTimeZone = MemberTimeZone.utc
    /// Where the zones named in the archives are found.
    public var timeZones: any TimeZoneSource = ZoneInfo.system
    /// Told after each compaction, from the compaction queue.
    public var compacted: @Sendable () -> Void = {}

    public init() {}
}

/// Every archive of a data directory: the accounts, the household's todo list and one archive
/// per member, written through one ``GroupCommitter``. Members' archives are loaded when first
/// used, so a server starts in milliseconds however long the household's history.
public final class FileArchiveStore: Sendable {
    public let path: String
    public let accounts: Archive<AccountBook>
    public let household: Archive<TodoList>
    public let committer: GroupCommitter
    private let fileSystem: any FileSystem
    private let options: StoreOptions
    private let logger: Logger
    /// Every member's archive; nil until first used.
    private let members: Locked<[UInt64: Archive<MemberArchive>?]>
    private let context: ArchiveContext
    private let lock: FileHandleID

    /// Opens (creating when missing) the data directory at `path` and loads every archive.
    /// An archive that cannot be read is put in protected mode; the others load normally.
    /// - Parameter owner: who holds the lock, as a second process will be told.
    /// - Throws: ``ArchiveError`` `.locked`, `.unsupportedVersion` or `.ioFailure` for the
    ///   directory itself; never for one archive.
    public init(
        path: String, fileSystem: any FileSystem = PosixFileSystem(), options: StoreOptions = StoreOptions(),
        logger: Logger = .silent, owner: String
    ) throws(ArchiveError) {
        let (lock, isNew) = try DataDirectory.prepare(path, fileSystem: fileSystem, owner: owner)
        self.lock = lock
        self.path = path
        self.fileSystem = fileSystem
        self.options = options
        self.logger = logger
        let committer = GroupCommitter(fileSystem: fileSystem)
        self.committer = committer
        let context = ArchiveContext(defaultTimeZone: options.defaultTimeZone, timeZones: options.timeZones)
        self.accounts = Archive(
            directory: "\(path)/\(DataDirectory.accounts)", fileSystem: fileSystem,
            context: context, expectation: isNew ? .newOrExisting : .existing, committer: committer,
            logger: logger, compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        self.household = Archive(
            directory: "\(path)/\(DataDirectory.household)", fileSystem: fileSystem,
            context: context, expectation: isNew ? .newOrExisting : .existing, committer: committer,
            logger: logger, compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        if isNew {
            do throws(ArchiveError) {
                try DataDirectory.finishCreating(path, fileSystem: fileSystem)
            } catch {
                fileSystem.close(lock)
                throw error
            }
        }
        var members: [UInt64: Archive<MemberArchive>?] = [:]
        do {
            for id in try DataDirectory.memberIDs(in: path, fileSystem: fileSystem) { members[id] = .some(nil) }
        } catch {
            throw ArchiveError(error)
        }
        self.members = Locked(members)
        self.context = context
    }

    /// The archive of member `id`, or nil when there is none.
    ///
    /// A member the accounts list must have files: a folder without any is damage. A folder the
    /// accounts do not know may be an add that a crash cut short before its first journal (or,
    /// for the store's own tests, a member written without accounts): it reads as empty.
    /// - Important: Not to be called while holding the accounts archive's lock.
    public func member(_ id: UInt64) -> Archive<MemberArchive>? {
        // Loaded already, or no such folder: the usual case, one lock.
        switch members.withLock({ $0[id] }) {
        case nil: return nil
        case let loaded??: return loaded
        case .some(nil): break
        }
        let listed = (try? accounts.read { $0.accounts[id] != nil }) ?? true
        return members.withLock { members in
            guard let slot = members[id] else { return nil }
            if let loaded = slot { return loaded }
            let archive = openMember(id, expectation: listed ? .existing : .newOrExisting)
            members[id] = archive
            return archive
        }
    }

    private func openMember(_ id: UInt64, expectation: ArchiveLoader<MemberArchive>.Expectation) -> Archive<
        MemberArchive
    > {
        let archive = Archive<MemberArchive>(
            directory: "\(path)/\(DataDirectory.users)/\(id)", fileSystem: fileSystem, context: context,
            expectation: expectation, committer: committer, logger: logger,
            compactionThreshold: options.compactionThreshold, compacted: options.compacted)
        // Loading inflates and decodes the whole snapshot: give those buffers back to the
        // system instead of keeping them as the process's high-water mark.
        CLinux_release_free_memory()
        return archive
    }

    public var memberIDs: [UInt64] {
        members.withLock { $0.keys.sorted() }
    }

    /// Creates the empty archive of a new member (its folder, durably) and returns it, or
    /// returns the archive already there: one a failed add left behind is reused, and so is a
    /// folder whose creation a crash cut short before its first journal (which ``member(_:)``,
    /// expecting a member that exists, would refuse as files gone missing).
    public func createMember(_ id: UInt64) throws(ArchiveError) -> Archive<MemberArchive> {
        let usersPath = "\(path)/\(DataDirectory.users)"
        do {
            try fileSystem.createDirectory("\(usersPath)/\(id)", mode: 0o700)
            try fileSystem.syncDirectory(usersPath)
        } catch {
            throw ArchiveError(error)
        }
        return try members.withLock { (members) throws(ArchiveError) -> Archive<MemberArchive> in
            if let loaded = members[id] ?? nil, loaded.protection == nil { return loaded }
            // Loaded as an existing member it may have been refused for having no files; read
            // it again as one being created (a protected archive holds nothing open).
            let archive = openMember(id, expectation: .newOrExisting)
            if let protection = archive.protection { throw protection }
            members[id] = archive
            return archive
        }
    }

    /// What the running process knows of its archives, for `water-server status`: the ones in
    /// use (loaded), those protected among them, and the last compaction.
    public var loadedStatus:
        (loaded: Int, protected: [String], lastCompaction: (path: String, unixMilliseconds: Int64)?)
    {
        let loaded: [any LoadedArchive] = [accounts, household] + members.withLock { $0.values.compactMap { $0 } }
        let last = loaded.compactMap { archive in archive.lastCompactionUnixMilliseconds.map { (archive.directory, $0) }
        }
        .max { $0.1 < $1.1 }
        return (loaded.count, loaded.filter { $0.protection != nil }.map(\.directory).sorted(), last)
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

    /// Finishes what was submitted, closes every journal and releases the directory's lock.
    /// Writes submitted afterwards fail.
    public func close() {
        flush()
        accounts.close()
        household.close()
        for archive in members.withLock({ $0.values.compactMap { $0 } }) { archive.close() }
        fileSystem.close(lock)
    }
}

/// An archive of any kind, as the status report sees it.
protocol LoadedArchive {
    var directory: String { get }
    var protection: ArchiveError? { get }
    var lastCompactionUnixMilliseconds: Int64? { get }
}

extension Archive: LoadedArchive {}
