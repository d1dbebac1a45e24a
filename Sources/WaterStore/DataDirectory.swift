import Glibc
import WaterCore

/// The layout of a data directory and what is checked before anything in it is touched:
///
///     DATA/              0700
///       format           "water-data <version>": refuses a directory of an unknown version
///       lock             held (flock) by the process using the directory; names it
///       accounts/        members, password hashes and sessions
///       household/       the shared todo list's archive
///       users/<id>/      one archive per member, by server-assigned id
///
/// Every file is created 0600.
public enum DataDirectory {
    public static let formatVersion = 1
    public static let formatFile = "format"
    public static let lockFile = "lock"
    public static let accounts = "accounts"
    public static let household = "household"
    public static let users = "users"
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

    /// Creates the directory (0700) when missing, checks its format version and takes its
    /// lock for the life of the process.
    /// - Throws: `.locked` naming the holder when another process uses it, `.unsupportedVersion`
    ///   for a directory of another format, `.ioFailure` when it cannot be created.
    /// - Returns: the lock's handle (closing it releases the directory), and whether the
    ///   directory is new: then its archives are created, and ``finishCreating(_:fileSystem:)``
    ///   writes the format file once they are.
    static func prepare(_ path: String, fileSystem: any FileSystem, owner: String)
        throws(ArchiveError) -> (lock: FileHandleID, isNew: Bool)
    {
        do {
            try fileSystem.createDirectory(path, mode: 0o700)
        } catch {
            throw ArchiveError(error)
        }
        let lock = try lock(path, fileSystem: fileSystem, owner: owner)
        do {
            let isNew = try checkFormat(path, fileSystem: fileSystem)
            for child in [accounts, household, users] {
                try fileSystem.createDirectory("\(path)/\(child)", mode: 0o700)
            }
            try fileSystem.syncDirectory(path)
            return (lock, isNew)
        } catch let error as ArchiveError {
            fileSystem.close(lock)
            throw error
        } catch {
            fileSystem.close(lock)
            throw ArchiveError(error as! FileSystemError)
        }
    }

    /// Who is using the data directory at `path` (as the holder of its lock wrote it), or nil
    /// when nobody is. Takes nothing and writes nothing.
    public static func user(of path: String, fileSystem: any FileSystem = PosixFileSystem()) -> String? {
        fileSystem.lockHolder("\(path)/\(lockFile)")
    }

    /// The id of the member called `username`, read from the accounts without changing them.
    /// - Throws: when the accounts archive does not load (repair it first).
    public static func memberID(named username: String, in path: String, fileSystem: any FileSystem = PosixFileSystem())
        throws(ArchiveError) -> UInt64?
    {
        let accounts = try ArchiveLoader<AccountBook>(
            fileSystem: fileSystem, directory: "\(path)/\(Self.accounts)",
            context: ArchiveContext(defaultTimeZone: .utc),
            expectation: .existing
        ).load()
        return accounts.model.account(named: username)?.id
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
        // closes them. So a refusal is only believed after a tenth of a second of them.
        var attempts = 0
        while true {
            do {
                return try fileSystem.lockExclusively("\(path)/\(lockFile)", owner: owner)
            } catch {
                guard error.errno == EWOULDBLOCK else { throw ArchiveError(error) }
                attempts += 1
                if attempts < 20 {
                    usleep(5_000)
                    continue
                }
                throw ArchiveError(.locked, "the data directory \(path) is in use by \(error.path); stop it first")
            }
        }
    }

    /// Checks the format file; returns true when there is none yet (a new directory).
    static func checkFormat(_ path: String, fileSystem: any FileSystem) throws(ArchiveError) -> Bool {
        let format = "\(path)/\(formatFile)"
        let text: String
        do {
            guard fileSystem.fileExists(format) else { return true }
            text = String(decoding: try fileSystem.readFile(format, limit: 256), as: UTF8.self)
        } catch {
            throw ArchiveError(error)
        }
        guard text == formatText else {
            throw ArchiveError(
                .unsupportedVersion,
                "\(path) is a data directory of format \"\(text.trimmed)\"; "
                    + "this server reads water-data \(formatVersion)")
        }
        return false
    }
}

extension String {
    fileprivate var trimmed: String {
        String(reversed().drop(while: \.isWhitespace).reversed())
    }
}
