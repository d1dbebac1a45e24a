import CLinux
import Glibc

/// The real file system, through Glibc.
public struct PosixFileSystem: FileSystem {
    public init() {}

    /// Retries a call interrupted by a signal; anything else that fails becomes a
    /// ``FileSystemError`` (or a trap, for errnos that only a bug can cause).
    @discardableResult
    fileprivate func syscall<T: BinaryInteger>(_ operation: String, _ path: String, _ call: () -> T)
        throws(FileSystemError) -> T
    {
        let (result, error) = retryingInterrupts(call)
        if result >= 0 { return result }
        precondition(error != EBADF && error != EFAULT, "\(operation) \(path): a bug (errno \(error))")
        throw FileSystemError(operation: operation, path: path, errno: error)
    }

    public func createDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        if mkdir(path, mode_t(mode)) == 0 { return }
        let error = errno
        guard error == EEXIST else { throw FileSystemError(operation: "mkdir", path: path, errno: error) }
    }

    public func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else {
            throw FileSystemError(operation: "opendir", path: path, errno: errno)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    public func readFile(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        let fd = try syscall("open", path) { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        defer { Glibc.close(fd) }
        var info = stat()
        try syscall("fstat", path) { fstat(fd, &info) }
        let size = Int(info.st_size)
        guard size <= limit else { throw FileSystemError(operation: "read", path: path, errno: EFBIG) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = try syscall("read", path) {
                bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            }
            if count == 0 { break }  // the file shrank while we read it
            done += count
        }
        return Array(bytes[..<done])
    }

    public func open(_ path: String, create: Bool, mode: UInt32) throws(FileSystemError) -> FileHandleID {
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0)
        return FileHandleID(raw: try syscall("open", path) { Glibc.open(path, flags, mode_t(mode)) })
    }

    public func write(_ handle: FileHandleID, _ bytes: [UInt8], at offset: Int) throws(FileSystemError) {
        var done = 0
        while done < bytes.count {
            done += try syscall("write", "fd \(handle.raw)") {
                bytes.withUnsafeBytes {
                    pwrite(handle.raw, $0.baseAddress! + done, bytes.count - done, off_t(offset + done))
                }
            }
        }
    }

    public func size(_ handle: FileHandleID) throws(FileSystemError) -> Int {
        var info = stat()
        try syscall("fstat", "fd \(handle.raw)") { fstat(handle.raw, &info) }
        return Int(info.st_size)
    }

    public func truncate(_ handle: FileHandleID, to length: Int) throws(FileSystemError) {
        try syscall("ftruncate", "fd \(handle.raw)") { ftruncate(handle.raw, off_t(length)) }
    }

    public func sync(_ handle: FileHandleID) throws(FileSystemError) {
        try syscall("fdatasync", "fd \(handle.raw)") { fdatasync(handle.raw) }
    }

    public func close(_ handle: FileHandleID) {
        Glibc.close(handle.raw)
    }

    public func rename(_ source: String, to destination: String) throws(FileSystemError) {
        try syscall("rename", "\(source) -> \(destination)") { Glibc.rename(source, destination) }
    }

    public func remove(_ path: String) throws(FileSystemError) {
        try syscall("unlink", path) { unlink(path) }
    }

    public func syncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try syscall("open", path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { Glibc.close(fd) }
        try syscall("fsync", path) { fsync(fd) }
    }

    public func lockExclusively(_ path: String, owner: String) throws(FileSystemError) -> FileHandleID {
        // The lock lives as long as this descriptor: closing it drops the lock.
        let fd = try syscall("open", path) { Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            let holder = (try? readFile(path, limit: 4096)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            Glibc.close(fd)
            throw FileSystemError(
                operation: "lock", path: holder.isEmpty ? path : holder.trimmingNewlines(), errno: error)
        }
        let bytes = Array(owner.utf8)
        _ = ftruncate(fd, 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return FileHandleID(raw: fd)
    }
}

extension PosixFileSystem {
    public func lockHolder(_ path: String) -> String? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0 else {
            flock(fd, LOCK_UN)
            return nil
        }
        let holder =
            (try? readFile(path, limit: 4096)).map { String(decoding: $0, as: UTF8.self).trimmingNewlines() } ?? ""
        return holder.isEmpty ? "another process" : holder
    }

    /// Swaps two paths atomically (renameat2 with RENAME_EXCHANGE): each then names what the
    /// other did, and a crash leaves one or the other under each name, never neither.
    public func exchange(_ first: String, _ second: String) throws(FileSystemError) {
        try syscall("renameat2", "\(first) <-> \(second)") { CLinux_exchange(first, second) }
    }
}

extension String {
    fileprivate func trimmingNewlines() -> String {
        String(reversed().drop(while: { $0 == "\n" }).reversed())
    }
}
