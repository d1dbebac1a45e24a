import Glibc

/// Copies a data directory while a server may be writing to it, and puts a copy back.
///
/// Nothing is locked: files are only ever appended to (journals) or replaced by rename
/// (snapshots, new journals), and every acknowledged write is synced before its reply. So for
/// each archive the files are listed, copied (journals first, the snapshot last), and listed
/// again; when the listing changed underneath (a compaction), that archive is copied again.
/// A copy holds every write acknowledged before the backup began; a write in flight may end
/// as a torn tail, which loading cuts off. Each copied archive is then loaded to prove it reads.
public enum Backup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Copies the data directory at `source` to `destination`, which must not exist yet.
    /// - Returns: how many archives were copied.
    @discardableResult
    public static func copy(from source: String, to destination: String) throws -> Int {
        guard access("\(source)/\(DataDirectory.formatFile)", F_OK) == 0 else {
            throw Failure(description: "\(source) is not a water data directory (no format file)")
        }
        guard access(destination, F_OK) != 0 else { throw Failure(description: "\(destination) already exists") }
        try makeDirectory(destination)
        try copyFile("\(source)/\(DataDirectory.formatFile)", to: "\(destination)/\(DataDirectory.formatFile)")
        try makeDirectory("\(destination)/\(DataDirectory.users)")
        // The server's key and certificate go with the data: a restored server presents the
        // certificate every member's computer has pinned.
        if access("\(source)/\(DataDirectory.tls)", F_OK) == 0 {
            try makeDirectory("\(destination)/\(DataDirectory.tls)")
            for name in try list("\(source)/\(DataDirectory.tls)") where !name.hasSuffix(".tmp") {
                try copyFile(
                    "\(source)/\(DataDirectory.tls)/\(name)", to: "\(destination)/\(DataDirectory.tls)/\(name)")
            }
            try syncDirectory("\(destination)/\(DataDirectory.tls)")
        }
        let archives: [String]
        do {
            archives = try DataDirectory.archives(in: source, fileSystem: PosixFileSystem())
        } catch {
            throw Failure(description: error.description)
        }
        for archive in archives {
            try copyArchive(from: "\(source)/\(archive)", to: "\(destination)/\(archive)")
        }
        try syncDirectory("\(destination)/\(DataDirectory.users)")
        try syncDirectory(destination)
        return archives.count
    }

    /// Puts a backup in place at `destination`. A non-empty `destination` is refused unless
    /// `force`, and then it is kept beside, renamed, never deleted.
    /// - Returns: where the directory that was there went, if anywhere.
    @discardableResult
    public static func restore(from backup: String, to destination: String, force: Bool, now: Int64) throws -> String? {
        guard access("\(backup)/\(DataDirectory.formatFile)", F_OK) == 0 else {
            throw Failure(description: "\(backup) is not a water backup (no format file)")
        }
        var keptAside: String?
        if access(destination, F_OK) == 0, !(try list(destination)).isEmpty {
            guard force else {
                throw Failure(
                    description:
                        "\(destination) is not empty; restore with --force to replace it (it is kept as a copy)")
            }
            let aside = "\(destination).replaced-\(now / 1000)"
            guard rename(destination, aside) == 0 else { throw failure("rename", destination) }
            keptAside = aside
        } else if access(destination, F_OK) == 0 {
            guard rmdir(destination) == 0 else { throw failure("rmdir", destination) }
        }
        try copy(from: backup, to: destination)
        return keptAside
    }

    /// Puts one archive (`users/<id>`, `accounts` or `household`) of a backup back into the
    /// data directory at `destination`, whose lock the caller holds. The copy is proven to load
    /// before it is swapped in; the archive it replaces is kept beside it.
    /// - Returns: where the replaced archive was kept, if there was one.
    @discardableResult
    public static func restoreArchive(_ archive: String, from backup: String, into destination: String, now: Int64)
        throws -> String?
    {
        let source = "\(backup)/\(archive)"
        let target = "\(destination)/\(archive)"
        guard access(source, F_OK) == 0 else { throw Failure(description: "the backup \(backup) has no \(archive)") }
        let staging = "\(target).restore.tmp"
        if access(staging, F_OK) == 0 { try clear(staging) }
        try copyArchive(from: source, to: staging)
        if let problem = DataDirectoryCheck.checkArchive(archive, at: staging).problem {
            try clear(staging)
            rmdir(staging)
            throw Failure(description: "the backup's \(archive) does not read (\(problem)); nothing was changed")
        }
        let fileSystem = PosixFileSystem()
        let parent = PosixFileSystem.parent(of: target)
        do {
            guard access(target, F_OK) == 0 else {
                try fileSystem.rename(staging, to: target)
                try fileSystem.syncDirectory(parent)
                return nil
            }
            try fileSystem.exchange(staging, target)
            let aside = "\(target).replaced-\(now / 1000)"
            try fileSystem.rename(staging, to: aside)
            try fileSystem.syncDirectory(parent)
            return aside
        } catch {
            throw Failure(description: error.description)
        }
    }

    private static func copyArchive(from source: String, to destination: String) throws {
        try makeDirectory(destination)
        for attempt in 1...20 {
            let before = try list(source).filter { !$0.hasSuffix(".tmp") }
            do {
                // Journals first, newest first, and the snapshot last. A snapshot newer than
                // the journals copied only makes them obsolete, never the other way round. An
                // older journal changes only by its seal, which is on disk before the newer
                // journal takes a record: so when the newer one was copied with records, the
                // older one copied after it has its seal.
                let journals = before.filter { ArchiveFiles.generation(ofJournal: $0) != nil }.sorted(by: >)
                for name in journals + before.filter({ ArchiveFiles.generation(ofJournal: $0) == nil }) {
                    try copyFile("\(source)/\(name)", to: "\(destination)/\(name)")
                }
            } catch let error as Failure where attempt < 20 && error.description.contains("No such file") {
                try clear(destination)
                continue  // a compaction removed a file while we copied: again
            }
            if try list(source).filter({ !$0.hasSuffix(".tmp") }) == before {
                try syncDirectory(destination)
                return
            }
            try clear(destination)
        }
        throw Failure(description: "\(source) kept changing while it was copied; try again")
    }

    // MARK: Files

    private static func failure(_ operation: String, _ path: String) -> Failure {
        Failure(description: "\(operation) \(path): \(String(cString: strerror(errno)))")
    }

    private static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw failure("mkdir", path) }
    }

    private static func list(_ path: String) throws -> [String] {
        do {
            return try PosixFileSystem().listDirectory(path)
        } catch {
            throw Failure(description: error.description)
        }
    }

    private static func clear(_ path: String) throws {
        for name in try list(path) { unlink("\(path)/\(name)") }
    }

    /// Copies a file's bytes as they are now, and syncs the copy.
    private static func copyFile(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure("open", source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw failure("open", destination) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 { throw failure("read", source) }
            if count == 0 { break }
            var done = 0
            while done < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, count - done) }
                guard written > 0 else { throw failure("write", destination) }
                done += written
            }
        }
        guard fsync(output) == 0 else { throw failure("fsync", destination) }
    }

    private static func syncDirectory(_ path: String) throws {
        do {
            try PosixFileSystem().syncDirectory(path)
        } catch {
            throw Failure(description: error.description)
        }
    }
}
