import Glibc

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
    static let lockFile = "lock"
    public static let accounts = "accounts"
    public static let household = "household"
    public static let users = "users"

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
    /// - Returns: the lock's handle; closing it releases the directory.
    static func prepare(_ path: String, fileSystem: any FileSystem, owner: String) throws(ArchiveError) -> FileHandleID {
        do {
            try fileSystem.createDirectory(path, mode: 0o700)
        } catch {
            throw ArchiveError(error)
        }
        let lock = try lock(path, fileSystem: fileSystem, owner: owner)
        do {
            try checkFormat(path, fileSystem: fileSystem)
            for child in [accounts, household, users] {
                try fileSystem.createDirectory("\(path)/\(child)", mode: 0o700)
            }
            try fileSystem.syncDirectory(path)
        } catch let error as ArchiveError {
            fileSystem.close(lock)
            throw error
        } catch {
            fileSystem.close(lock)
            throw ArchiveError(error as! FileSystemError)
        }
        return lock
    }

    private static func lock(_ path: String, fileSystem: any FileSystem, owner: String) throws(ArchiveError)
        -> FileHandleID
    {
        do {
            return try fileSystem.lockExclusively("\(path)/\(lockFile)", owner: owner)
        } catch {
            guard error.errno == EWOULDBLOCK else { throw ArchiveError(error) }
            throw ArchiveError(.locked, "the data directory \(path) is in use by \(error.path); stop it first")
        }
    }

    /// Writes the format file of a new directory, or checks the one there.
    private static func checkFormat(_ path: String, fileSystem: any FileSystem) throws(ArchiveError) {
        let format = "\(path)/\(formatFile)"
        let expected = "water-data \(formatVersion)\n"
        let text: String
        do {
            guard fileSystem.fileExists(format) else {
                try fileSystem.replaceFile(format, with: Array(expected.utf8), mode: 0o600)
                return
            }
            text = String(decoding: try fileSystem.readFile(format, limit: 256), as: UTF8.self)
        } catch {
            throw ArchiveError(error)
        }
        guard text == expected else {
            throw ArchiveError(.unsupportedVersion, "\(path) is a data directory of format \"\(text.trimmed)\"; "
                + "this server reads water-data \(formatVersion)")
        }
    }
}

extension String {
    fileprivate var trimmed: String {
        String(reversed().drop(while: \.isWhitespace).reversed())
    }
}
