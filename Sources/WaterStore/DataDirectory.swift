import Glibc
import WaterCore
import WaterSystem

/// The layout of a data directory and what is checked before anything in it is touched:
///
///     DATA/              0700
///       format           "water-data <version>": refuses a directory of an unknown version
///       lock             held (flock) by the process using the directory; names it
///       log/             the shared log: every archive's records since its snapshot
///       accounts/        members, password hashes and sessions
///       household/       the shared todo list's archive
///       users/<id>/      one archive per member, by server-assigned id
///
/// Every file is created 0600. Format 1 (per-archive journals, no `log/`) is moved to format 2
/// when first opened (``LegacyMigration``).
public enum DataDirectory {
    public static let formatVersion = 2
    /// The format of per-archive journals, which is read to migrate it.
    static let legacyFormatVersion = 1
    public static let formatFile = "format"
    public static let lockFile = "lock"
    public static let accounts = "accounts"
    public static let household = "household"
    public static let users = "users"
    public static let log = "log"
    /// The server's TLS key and certificate (made by `water-server init`).
    public static let tls = "tls"

    /// The ids of the members whose archives are in the data directory at `path`: the
    /// folders of `users/` named by a number (anything else there is not an archive).
    public static func memberIDs(in path: String, fileSystem: any FileSystem) throws(FileSystemError) -> [UInt64] {
        try fileSystem.listDirectory("\(path)/\(users)").compactMap { name in
            UInt64(name).flatMap { String($0) == name ? $0 : nil }
        }.sorted()
    }

    /// Every archive of the data directory at `path`, relative to it: the accounts, the
    /// household's list, then each member's.
    public static func archives(in path: String, fileSystem: any FileSystem) throws(FileSystemError) -> [String] {
        [accounts, household] + (try memberIDs(in: path, fileSystem: fileSystem)).map { "\(users)/\($0)" }
    }

    /// What ``prepare(_:fileSystem:owner:)`` found.
    enum State {
        /// No format file yet: ``create(_:fileSystem:)`` makes its archives.
        case new
        /// Format 1, to be migrated.
        case legacy
        case current
    }

    /// Creates the directory (0700) when missing and `mayCreate`, checks its format version and
    /// takes its lock for the life of the process.
    /// - Throws: `.locked` naming the holder when another process uses it, `.unsupportedVersion`
    ///   for a directory of another format, `.notADataDirectory` when it has no format file and
    ///   may not be made, `.ioFailure` when it cannot be created.
    /// - Returns: the lock's handle (closing it releases the directory), and what it found.
    static func prepare(_ path: String, fileSystem: any FileSystem, owner: String, mayCreate: Bool = true)
        throws(ArchiveError) -> (lock: FileHandleID, state: State)
    {
        guard mayCreate || fileSystem.fileExists("\(path)/\(formatFile)") else {
            throw ArchiveError(
                .notADataDirectory,
                "\(path) is not a water data directory (it has no format file): check the path and that its "
                    + "disk is mounted, or make a new household there with water-server init --data \(path) --admin NAME"
            )
        }
        do {
            try fileSystem.createDirectory(path, mode: 0o700)
        } catch {
            throw ArchiveError(error)
        }
        let lock = try lock(path, fileSystem: fileSystem, owner: owner)
        do {
            let version = try checkFormat(path, fileSystem: fileSystem)
            for child in [accounts, household, users] {
                try fileSystem.createDirectory("\(path)/\(child)", mode: 0o700)
            }
            try fileSystem.syncDirectory(path)
            let state: State =
                switch version {
                case nil: .new
                case legacyFormatVersion: .legacy
                default: .current
                }
            return (lock, state)
        } catch let error as ArchiveError {
            fileSystem.close(lock)
            throw error
        } catch {
            fileSystem.close(lock)
            throw ArchiveError(error as! FileSystemError)
        }
    }

    /// Makes a new directory's log and its two empty archives, then writes the format file:
    /// until then a crash leaves a directory that is made anew, after it one that is whole.
    static func create(_ path: String, fileSystem: any FileSystem, timeZones: any TimeZoneSource)
        throws(ArchiveError)
    {
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        do {
            try fileSystem.createDirectory("\(path)/\(log)", mode: 0o700)
            try fileSystem.syncDirectory(path)
            try fileSystem.replaceFile(
                "\(path)/\(accounts)/\(ArchiveFiles.snapshot)",
                with: emptySnapshot(AccountBook.self, context: context, at: .start), mode: 0o600)
            try fileSystem.replaceFile(
                "\(path)/\(household)/\(ArchiveFiles.snapshot)",
                with: emptySnapshot(TodoList.self, context: context, at: .start), mode: 0o600)
        } catch {
            throw ArchiveError(error)
        }
        try finishCreating(path, fileSystem: fileSystem)
    }

    /// The snapshot of an archive with nothing in it yet, standing at `position` of the log.
    static func emptySnapshot<Model: ArchiveModel>(
        _ type: Model.Type, context: ArchiveContext, at position: LogPosition
    )
        -> [UInt8]
    {
        SnapshotFile.encode(
            body: Model(context: context).encodeSnapshot(lastSequence: 0, journalGeneration: position.generation),
            version: Model.snapshotVersion, kind: Model.kind,
            stamp: SnapshotFile.Stamp(lastSequence: 0, position: position))
    }

    /// Who is using the data directory at `path` (as the holder of its lock wrote it), or nil
    /// when nobody is. Takes nothing and writes nothing.
    public static func user(of path: String, fileSystem: any FileSystem = PosixFileSystem()) -> String? {
        fileSystem.lockHolder("\(path)/\(lockFile)")
    }

    /// The id of the member called `username`, read from the accounts without changing them.
    /// - Throws: when the accounts archive does not load (repair it first).
    public static func memberID(
        named username: String, in path: String, timeZones: any TimeZoneSource,
        fileSystem: any FileSystem = PosixFileSystem()
    ) throws(ArchiveError) -> UInt64? {
        let accounts = try read(
            AccountBook.self, DataDirectory.accounts, in: path, fileSystem: fileSystem, timeZones: timeZones)
        return accounts.model.account(named: username)?.id
    }

    /// Loads one archive (`accounts`, `household`, `users/<id>`) of the data directory at
    /// `path` without changing anything: its snapshot and its chunks in the log.
    static func read<Model: ArchiveModel>(
        _ type: Model.Type, _ folder: String, in path: String, fileSystem: any FileSystem,
        timeZones: any TimeZoneSource, log: LogReader? = nil, expectation: ArchiveExpectation = .existing
    ) throws(ArchiveError) -> ArchiveLoader<Model>.LoadedArchive {
        guard let key = ArchiveKey.of(folder: folder) else {
            throw ArchiveError(.ioFailure, "\(folder) is not an archive of a data directory")
        }
        let reader: LogReader
        if let log {
            reader = log
        } else {
            do {
                reader = LogReader(
                    directory: "\(path)/\(Self.log)", fileSystem: fileSystem,
                    index: try LogIndex.read("\(path)/\(Self.log)", fileSystem: fileSystem))
            } catch {
                throw ArchiveError(error)
            }
        }
        return try ArchiveLoader<Model>(
            fileSystem: fileSystem, directory: "\(path)/\(folder)", key: key,
            context: ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones), expectation: expectation, log: reader
        ).load()
    }

    /// Marks a new directory as complete. Until this, its archives may still be missing files
    /// (a crash while creating it); after it, an archive without files has lost them.
    static func finishCreating(_ path: String, fileSystem: any FileSystem) throws(ArchiveError) {
        do {
            try fileSystem.replaceFile("\(path)/\(formatFile)", with: Array(formatText.utf8), mode: 0o600)
        } catch {
            throw ArchiveError(error)
        }
    }

    private static var formatText: String { "water-data \(formatVersion)\n" }

    /// Takes the directory's lock for an admin command that changes files with the server
    /// stopped; closing the handle releases it.
    /// - Throws: `.locked`, naming the holder, while the server (or another command) runs.
    public static func lock(_ path: String, fileSystem: any FileSystem = PosixFileSystem(), owner: String)
        throws(ArchiveError) -> FileHandleID
    {
        // A lock just released can look held for an instant: a process that another thread of
        // the releasing program was forking holds a copy of every descriptor until its exec
        // closes them, which on a busy machine (a test run beside four compilers) took longer
        // than a tenth of a second. So a refusal is only believed after a second of them.
        var attempts = 0
        while true {
            do {
                return try fileSystem.lockExclusively("\(path)/\(lockFile)", owner: owner)
            } catch {
                guard error.errno == EWOULDBLOCK else { throw ArchiveError(error) }
                attempts += 1
                if attempts < 200 {
                    usleep(5_000)
                    continue
                }
                throw ArchiveError(.locked, "the data directory \(path) is in use by \(error.path); stop it first")
            }
        }
    }

    /// Checks the format file; returns its version, or nil when there is none yet (a new
    /// directory).
    static func checkFormat(_ path: String, fileSystem: any FileSystem) throws(ArchiveError) -> Int? {
        let format = "\(path)/\(formatFile)"
        let text: String
        do {
            guard fileSystem.fileExists(format) else { return nil }
            text = String(decoding: try fileSystem.readFile(format, limit: 256), as: UTF8.self)
        } catch {
            throw ArchiveError(error)
        }
        for version in [formatVersion, legacyFormatVersion] where text == "water-data \(version)\n" {
            return version
        }
        throw ArchiveError(
            .unsupportedVersion,
            "\(path) is a data directory of format \"\(text.trimmed)\"; "
                + "this server reads water-data \(formatVersion) (and moves water-data \(legacyFormatVersion) to it)")
    }
}

extension String {
    fileprivate var trimmed: String {
        String(reversed().drop(while: \.isWhitespace).reversed())
    }
}
