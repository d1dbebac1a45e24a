import Glibc

/// An open file, as a ``FileSystem`` hands it out.
public struct FileHandleID: Hashable, Sendable {
    public let raw: Int32

    public init(raw: Int32) {
        self.raw = raw
    }
}

/// A failed file-system call: the operation, the path and the errno. Environment errors
/// (EIO, ENOSPC, EACCES, ...) are thrown; programmer errors (EBADF, EFAULT) trap.
public struct FileSystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The seam between the store and the disk: every call the store makes to the file system
/// goes through here, so tests can fail the Nth write, sync or rename (``FaultInjectingFileSystem``)
/// or drop everything not yet synced, as a power cut would (``SimulatedFileSystem``).
public protocol FileSystem: Sendable {
    /// Creates a directory with `mode`; succeeds when it exists already.
    func createDirectory(_ path: String, mode: UInt32) throws(FileSystemError)
    /// The names in a directory, without `.` and `..`.
    func listDirectory(_ path: String) throws(FileSystemError) -> [String]
    func fileExists(_ path: String) -> Bool
    /// The whole file. Throws EFBIG for a file larger than `limit`, before reading it.
    func readFile(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8]
    /// Opens a file for reading and writing, creating it with `mode` when asked.
    func open(_ path: String, create: Bool, mode: UInt32) throws(FileSystemError) -> FileHandleID
    /// Writes all of `bytes` at `offset`.
    func write(_ handle: FileHandleID, _ bytes: [UInt8], at offset: Int) throws(FileSystemError)
    func size(_ handle: FileHandleID) throws(FileSystemError) -> Int
    func truncate(_ handle: FileHandleID, to length: Int) throws(FileSystemError)
    /// Makes the file's data durable (fdatasync).
    func sync(_ handle: FileHandleID) throws(FileSystemError)
    func close(_ handle: FileHandleID)
    /// Renames atomically, replacing `destination`.
    func rename(_ source: String, to destination: String) throws(FileSystemError)
    func remove(_ path: String) throws(FileSystemError)
    /// Makes the directory's entries durable (fsync of the directory): a created, renamed or
    /// removed name survives a crash only after this.
    func syncDirectory(_ path: String) throws(FileSystemError)
    /// Takes an exclusive lock on `path` (created when missing), writing `owner` into it; it
    /// is held until the returned handle is closed or the process ends. Throws EWOULDBLOCK,
    /// with the holder's text as the path, when another process holds it.
    func lockExclusively(_ path: String, owner: String) throws(FileSystemError) -> FileHandleID
    /// Who holds the lock on `path` (the text the holder wrote), or nil when nobody does.
    /// Changes nothing: the file is only opened for reading and the lock only tested.
    func lockHolder(_ path: String) -> String?
}

extension FileSystem {
    /// Replaces `path` atomically with `bytes`, the one way every program here writes a file
    /// whole: write a temporary file, sync it, rename it over `path`, sync the directory. A
    /// crash leaves the old file or the new one, never a mix, and once this returns the new one
    /// survives a power cut.
    /// - Parameters:
    ///   - temporary: where the bytes are written first; `path.tmp` by default, which loaders
    ///     remove. Files that two processes may write at once need a name of each writer's own.
    ///   - syncing: false for a file that may be lost (a cache, a status rewritten every few
    ///     seconds): still whole or absent, but perhaps the old one after a power cut, and no
    ///     sync wears the SD card.
    public func replaceFile(
        _ path: String, with bytes: [UInt8], mode: UInt32, temporary: String? = nil, syncing: Bool = true
    ) throws(FileSystemError) {
        let temporary = temporary ?? path + ".tmp"
        let handle = try open(temporary, create: true, mode: mode)
        do {
            try truncate(handle, to: 0)
            try write(handle, bytes, at: 0)
            if syncing { try sync(handle) }
        } catch {
            close(handle)
            try? remove(temporary)
            throw error
        }
        close(handle)
        do { try rename(temporary, to: path) } catch {
            try? remove(temporary)
            throw error
        }
        if syncing { try syncDirectory(Self.parent(of: path)) }
    }

    /// The directory that holds `path`.
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
