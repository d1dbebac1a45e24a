import Glibc
import WaterCore
import WaterSystem

/// Copies a data directory while a server may be writing to it, and puts a copy back.
///
/// Nothing is locked: the log is only ever appended to (and its old segments removed), snapshots
/// are replaced by rename, and every acknowledged write is synced before its reply. So the log
/// is copied first, newest segment first (an older segment no longer changes once a newer one
/// holds frames), and the archives' snapshots after it: a snapshot newer than the log copied
/// only stands further along, never the other way round, and a segment removed meanwhile was one
/// every snapshot had passed. A copy holds every write acknowledged before the backup began; a
/// write in flight may end as a torn tail, which the server cuts off when it starts on the copy.
/// Each copied archive is then loaded to prove it reads.
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
        // The parent is never made: a backup to a USB disk that is not mounted would fill the
        // SD card under its empty mount point instead.
        let parent = parentFolder(of: destination)
        guard access(parent, F_OK) == 0 else {
            throw Failure(
                description: "\(parent) does not exist (is the disk mounted?); make it first with mkdir -p \(parent), "
                    + "or choose another --to")
        }
        // A backup inside the data directory is lost with it (the same disk, the same rm -r),
        // and the next backup would copy it too.
        guard !isInside(destination, source) else {
            throw Failure(
                description: "\(destination) is inside the data directory \(source): back up to another place")
        }
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
        try copyLog(from: "\(source)/\(DataDirectory.log)", to: "\(destination)/\(DataDirectory.log)")
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

    /// The folder `path` is in: `.` for a bare name, `/` for one at the root.
    static func parentFolder(of path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Copies the log's segments, newest first; one removed meanwhile is passed over (every
    /// snapshot, copied after, stands past it).
    /// Whether `path`, which need not exist yet, is `directory` or inside it, with links and
    /// `..` resolved.
    static func isInside(_ path: String, _ directory: String) -> Bool {
        let parent = parentFolder(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let resolvedParent = realPath(parent), let resolvedDirectory = realPath(directory)
        else { return false }
        let resolved = resolvedParent == "/" ? "/\(name)" : "\(resolvedParent)/\(name)"
        return resolved == resolvedDirectory || resolved.hasPrefix(resolvedDirectory + "/")
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func copyLog(from source: String, to destination: String) throws {
        guard access(source, F_OK) == 0 else { return }
        try makeDirectory(destination)
        for name in try list(source).filter({ LogSegment.generation(ofName: $0) != nil }).sorted(by: >) {
            do {
                try copyFile("\(source)/\(name)", to: "\(destination)/\(name)")
            } catch let error as Failure where error.description.contains("No such file") {
                unlink("\(destination)/\(name)")
            }
        }
        try syncDirectory(destination)
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
    /// data directory at `destination`, whose lock the caller holds. The backup's archive is
    /// proven to load first, then written as one snapshot standing at the end of the
    /// destination's log (so nothing of the replaced archive in the log is read again) and
    /// swapped in; the archive it replaces is kept beside it, as one snapshot of everything it
    /// held when it loads, else as its files with copies of the log segments that held its
    /// records.
    /// - Returns: where the replaced archive was kept, if there was one.
    @discardableResult
    public static func restoreArchive(
        _ archive: String, from backup: String, into destination: String, now: Int64, timeZones: any TimeZoneSource
    ) throws -> String? {
        guard access("\(backup)/\(archive)", F_OK) == 0 else {
            throw Failure(description: "the backup \(backup) has no \(archive)")
        }
        switch archive {
        case DataDirectory.accounts:
            return try restore(AccountBook.self, archive, from: backup, into: destination, now: now, timeZones)
        case DataDirectory.household:
            return try restore(TodoList.self, archive, from: backup, into: destination, now: now, timeZones)
        default: return try restore(MemberArchive.self, archive, from: backup, into: destination, now: now, timeZones)
        }
    }

    private static func restore<Model: ArchiveModel>(
        _ type: Model.Type, _ archive: String, from backup: String, into destination: String, now: Int64,
        _ timeZones: any TimeZoneSource
    ) throws -> String? {
        let fileSystem = PosixFileSystem()
        let restored: ArchiveLoader<Model>.LoadedArchive
        do {
            restored = try DataDirectory.read(
                Model.self, archive, in: backup, fileSystem: fileSystem, timeZones: timeZones)
        } catch {
            throw Failure(description: "the backup's \(archive) does not read (\(error.message)); nothing was changed")
        }
        let logDirectory = "\(destination)/\(DataDirectory.log)"
        let index: LogIndex
        do {
            index = try LogIndex.read(logDirectory, fileSystem: fileSystem)
        } catch {
            throw Failure(description: error.description)
        }
        let target = "\(destination)/\(archive)"
        let staging = "\(target).restore.tmp"
        if access(staging, F_OK) == 0 { try clear(staging) }
        try makeDirectory(staging)
        let parent = PosixFileSystem.parent(of: target)
        do {
            try fileSystem.replaceFile(
                "\(staging)/\(ArchiveFiles.snapshot)",
                with: snapshot(of: restored.model, lastSequence: restored.lastSequence, at: index.end), mode: 0o600)
            guard access(target, F_OK) == 0 else {
                try fileSystem.rename(staging, to: target)
                try fileSystem.syncDirectory(parent)
                return nil
            }
            // What is replaced, kept whole: read before the swap makes its chunks obsolete.
            let replaced = try? DataDirectory.read(
                Model.self, archive, in: destination, fileSystem: fileSystem, timeZones: timeZones,
                log: LogReader(directory: logDirectory, fileSystem: fileSystem, index: index))
            try fileSystem.exchange(staging, target)
            let aside = "\(target).replaced-\(now / 1000)"
            try fileSystem.rename(staging, to: aside)
            if let replaced {
                for name in try fileSystem.listDirectory(aside) { try fileSystem.remove("\(aside)/\(name)") }
                try fileSystem.replaceFile(
                    "\(aside)/\(ArchiveFiles.snapshot)",
                    with: snapshot(of: replaced.model, lastSequence: replaced.lastSequence, at: .start), mode: 0o600)
            } else if let key = ArchiveKey.of(folder: archive) {
                for generation in Set((index.chunks[key] ?? []).map(\.generation)).sorted() {
                    let name = LogSegment.name(generation: generation)
                    try copyFile("\(logDirectory)/\(name)", to: "\(aside)/log-\(name)")
                }
            }
            try fileSystem.syncDirectory(parent)
            return aside
        } catch let error as FileSystemError {
            throw Failure(description: error.description)
        }
    }

    /// One snapshot holding `model`, standing at `position`.
    private static func snapshot<Model: ArchiveModel>(of model: Model, lastSequence: UInt64, at position: LogPosition)
        -> [UInt8]
    {
        SnapshotFile.encode(
            body: model.encodeSnapshot(lastSequence: lastSequence, journalGeneration: position.generation),
            version: Model.snapshotVersion, kind: Model.kind,
            stamp: SnapshotFile.Stamp(lastSequence: lastSequence, position: position))
    }

    /// Copies an archive's folder: its snapshot (replaced only by rename, so copied whole), and
    /// the journals of one still in format 1 (protected, kept as it is); again when a file was
    /// replaced under the copy.
    private static func copyArchive(from source: String, to destination: String) throws {
        try makeDirectory(destination)
        for attempt in 1...20 {
            let names = try list(source).filter { !$0.hasSuffix(".tmp") }
            do {
                for name in names { try copyFile("\(source)/\(name)", to: "\(destination)/\(name)") }
            } catch let error as Failure where attempt < 20 && error.description.contains("No such file") {
                try clear(destination)
                continue
            }
            try syncDirectory(destination)
            return
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
