import Glibc
import WaterSystem

/// The few file operations the client's own files need: directories 0700, files 0600, and
/// writes that are durable and atomic (a crash leaves the old file or the new one, never half).
public enum LocalFile {
    /// A small text file, or nil when it cannot be read.
    public static func readText(_ path: String) -> String? {
        read(path, limit: 64 * 1024).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes a small text file atomically, and durably unless `syncing` is false (see
    /// ``writeDurably(_:_:syncing:)``).
    public static func writeText(_ path: String, _ text: String, syncing: Bool = true) throws(WaterClientError) {
        try writeDurably(path, Array(text.utf8), syncing: syncing)
    }

    /// `mkdir -p`, each level 0700.
    static func makeDirectory(_ path: String) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/\(component)"
            mkdir(partial, 0o700)
        }
    }

    /// The whole file, or nil when it cannot be read.
    static func read(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let (count, _) = retryingInterrupts { Glibc.read(fd, &buffer, buffer.count) }
            if count <= 0 { return count == 0 ? bytes : nil }
            bytes += buffer[0..<count]
        }
        return nil
    }

    /// Writes `bytes` to `path` through a temporary file of its own (two processes may write at
    /// once), synced, renamed into place, and the directory synced: once this returns, the file
    /// survives a crash or a power cut. With `syncing` false (a cache, rebuilt from the server
    /// anyway) it is only atomic: whole or not there, but perhaps the old one after a power cut.
    static func writeDurably(_ path: String, _ bytes: [UInt8], syncing: Bool = true) throws(WaterClientError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        makeDirectory(directory)
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try PosixFileSystem().replaceFile(path, with: bytes, mode: 0o600, temporary: temporary, syncing: syncing)
        } catch {
            throw WaterClientError("cannot write \(path): \(String(cString: strerror(error.errno)))")
        }
    }

    /// Makes a rename or an unlink in `directory` durable.
    static func syncDirectory(_ directory: String) {
        try? PosixFileSystem().syncDirectory(directory.isEmpty ? "." : directory)
    }

    /// Runs `body` holding an exclusive `flock` on `path` (made, 0600, when missing): every
    /// process that takes the same lock waits here for the one before to finish.
    public static func withLock<Result>(_ path: String, _ body: () throws -> Result) rethrows -> Result {
        makeDirectory(path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = retryingInterrupts { flock(fd, LOCK_EX) }
        }
        defer {
            if fd >= 0 {
                flock(fd, LOCK_UN)
                close(fd)
            }
        }
        return try body()
    }

    /// The names in `directory`, without `.` and `..`; empty when it does not exist.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
