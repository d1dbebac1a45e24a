import Glibc
import WaterCore
import WaterSystem

/// Verifies a data directory by reading it, and only reading it: no lock is taken, no tail is
/// cut, nothing is created, so it changes no byte and works while a server is running.
///
/// A running server appends to the log, starts new segments, removes old ones and replaces
/// snapshots while the check reads; the check notes what the log's files and the snapshots
/// were before and after, and reads everything again when they changed under it.
public enum DataDirectoryCheck {
    /// What was found in one archive.
    /// `water-server check --json` prints these with the field names below.
    public struct Report: Sendable, Hashable, Encodable {
        /// The archive's folder, relative to the data directory (`accounts`, `users/3`, ...).
        public var archive: String
        /// The member whose archive it is, when the accounts say (`users/<id>` only).
        public var member: String?
        /// Whether that member was removed (their archive stays, for `member restore`).
        public var removed = false
        /// Why it cannot be loaded (the server protects it), or nil when it loads.
        public var problem: String?
        /// A write at the end of the log that never completed, which held records of this
        /// archive (reported on a `log` entry when its directory did not survive): never
        /// acknowledged, cut when the server next starts. While the server runs, a write in
        /// flight.
        public var tornTail: TornTail?
        /// The sequence number of its last record: how many writes it has seen.
        public var lastRecord: UInt64
        /// What a member's archive holds over its caps (``MemberArchive/overCaps``), one line
        /// each: stored before them, it loads and is kept whole; only writes that would add to
        /// it are refused. Not a problem: the archive is healthy.
        public var overCaps: [String] = []
    }

    public struct TornTail: Sendable, Hashable, Encodable {
        /// The file it is in, relative to the data directory (`log/<segment>`; format 1: the
        /// journal's name in the archive's folder).
        public var journal: String
        public var bytes: Int
        /// How many records its bytes still delimit; nil when its frame header was lost too.
        public var records: Int?
    }

    /// Checks every archive of the data directory at `path`.
    /// - Throws: when `path` is not a data directory of a format this code reads.
    /// - Parameter timeZones: where the zones the archives name are found.
    public static func run(
        _ path: String, timeZones: any TimeZoneSource, fileSystem: any FileSystem = PosixFileSystem()
    ) throws(ArchiveError) -> [Report] {
        // The household's time zone only matters to an empty archive, which `.existing` refuses.
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        guard fileSystem.fileExists("\(path)/\(DataDirectory.formatFile)") else {
            throw ArchiveError(.ioFailure, "\(path) is not a water data directory (it has no format file)")
        }
        let version = try DataDirectory.checkFormat(path, fileSystem: fileSystem)
        let archives: [String]
        do {
            archives = try DataDirectory.archives(in: path, fileSystem: fileSystem)
        } catch {
            throw ArchiveError(error)
        }
        var reports =
            version == DataDirectory.legacyFormatVersion
            ? archives.map { checkLegacyArchive($0, at: "\(path)/\($0)", context, fileSystem: fileSystem) }
            : checkBesideServer(path, archives, context, fileSystem)
        let book = Self.accounts(path, version: version, context, fileSystem: fileSystem)
        let members = book?.members ?? []
        for index in reports.indices {
            let folder = reports[index].archive
            if let member = members.first(where: { "\(DataDirectory.users)/\($0.id)" == folder }) {
                reports[index].member = member.username
            } else if let removed = book?.removedMembers.first(where: { "\(DataDirectory.users)/\($0.id)" == folder }) {
                reports[index].member = removed.username
                reports[index].removed = true
            }
        }
        // Every member the accounts know has an archive. An empty folder of someone the
        // accounts do not know is what an add cut short leaves: the next add reuses it.
        let known = Set(members.map { "\(DataDirectory.users)/\($0.id)" })
        let accountsRead = reports.contains { $0.archive == DataDirectory.accounts && $0.problem == nil }
        for index in reports.indices
        where accountsRead && reports[index].archive.hasPrefix("\(DataDirectory.users)/")
            && !known.contains(reports[index].archive) && reports[index].problem != nil
            && (try? fileSystem.listDirectory("\(path)/\(reports[index].archive)").isEmpty) == true
        {
            reports[index].problem = nil
        }
        let present = Set(archives)
        for member in members where !present.contains("\(DataDirectory.users)/\(member.id)") {
            reports.append(
                Report(
                    archive: "\(DataDirectory.users)/\(member.id)", member: member.username,
                    problem: "\(member.username)'s archive is missing: the accounts list them, "
                        + "but \(path)/\(DataDirectory.users)/\(member.id) does not exist",
                    tornTail: nil, lastRecord: 0))
        }
        return reports
    }

    /// The members the accounts of the data directory at `path` list, by archive folder
    /// (`users/<id>`: username, or `ben, removed` for a removed member's, which stays on disk);
    /// empty when the accounts do not read.
    public static func memberNames(
        _ path: String, timeZones: any TimeZoneSource, fileSystem: any FileSystem = PosixFileSystem()
    ) -> [String: String] {
        guard let version = try? DataDirectory.checkFormat(path, fileSystem: fileSystem) else { return [:] }
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        let book = accounts(path, version: version, context, fileSystem: fileSystem)
        let names =
            (book?.members ?? []).map { ($0.id, $0.username) }
            + (book?.removedMembers ?? []).map { ($0.id, "\($0.username), removed") }
        return Dictionary(
            names.map { ("\(DataDirectory.users)/\($0.0)", $0.1) }, uniquingKeysWith: { first, _ in first })
    }

    /// `archive` as a person reads it: `users/2 (dad)` when `names` knows whose it is.
    public static func label(_ archive: String, _ names: [String: String]) -> String {
        names[archive].map { "\(archive) (\($0))" } ?? archive
    }

    /// The accounts of the data directory at `path`; nil when they do not read.
    private static func accounts(_ path: String, version: Int?, _ context: ArchiveContext, fileSystem: any FileSystem)
        -> AccountBook?
    {
        version == DataDirectory.legacyFormatVersion
            ? (try? LegacyArchiveLoader<AccountBook>(
                fileSystem: fileSystem, directory: "\(path)/\(DataDirectory.accounts)", context: context,
                expectation: .existing
            ).load())?.model
            : (try? DataDirectory.read(
                AccountBook.self, DataDirectory.accounts, in: path, fileSystem: fileSystem,
                timeZones: context.timeZones))?.model
    }

    /// What the log of the data directory at `path` has wrong that costs no archive anything (a
    /// damaged segment header, a damaged copy of a frame's directory, stray bytes after a
    /// segment's last frame): for `check` to mention.
    public static func logNotes(_ path: String, fileSystem: any FileSystem = PosixFileSystem()) -> [String] {
        (try? LogIndex.read("\(path)/\(DataDirectory.log)", fileSystem: fileSystem))?.notices ?? []
    }

    /// Why one archive (`accounts`, `household`, `users/<id>`) of the data directory at `path`
    /// does not read, or nil when it reads; of either format.
    public static func problem(
        of archive: String, in path: String, timeZones: any TimeZoneSource,
        fileSystem: any FileSystem = PosixFileSystem()
    ) -> String? {
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        let version: Int?
        do {
            version = try DataDirectory.checkFormat(path, fileSystem: fileSystem)
        } catch {
            return error.message
        }
        if version == DataDirectory.legacyFormatVersion {
            return checkLegacyArchive(archive, at: "\(path)/\(archive)", context, fileSystem: fileSystem).problem
        }
        do {
            switch archive {
            case DataDirectory.accounts:
                _ = try DataDirectory.read(
                    AccountBook.self, archive, in: path, fileSystem: fileSystem, timeZones: timeZones)
            case DataDirectory.household:
                _ = try DataDirectory.read(
                    TodoList.self, archive, in: path, fileSystem: fileSystem, timeZones: timeZones)
            default:
                _ = try DataDirectory.read(
                    MemberArchive.self, archive, in: path, fileSystem: fileSystem, timeZones: timeZones)
            }
            return nil
        } catch {
            return error.message
        }
    }

    /// Checks every archive of a directory of the current format, again while a running server
    /// changes the files underneath.
    private static func checkBesideServer(
        _ path: String, _ archives: [String], _ context: ArchiveContext, _ fileSystem: any FileSystem
    ) -> [Report] {
        var reports: [Report] = []
        for _ in 0..<20 {
            let before = filesState(path, archives, fileSystem)
            reports = checkOnce(path, archives, context, fileSystem)
            if filesState(path, archives, fileSystem) == before { break }
        }
        return reports
    }

    /// What the check reads, as a running server would change it: the log's files and their
    /// headers' worth of use, and each snapshot's stamp.
    private static func filesState(_ path: String, _ archives: [String], _ fileSystem: any FileSystem) -> [String] {
        let log = "\(path)/\(DataDirectory.log)"
        let segments = ((try? fileSystem.listDirectory(log)) ?? []).map { name in
            name + ":"
                + ((try? fileSystem.readFile("\(log)/\(name)", limit: LogSegment.maximumLength))
                    .map { "\(Checksum.crc32($0))" } ?? "gone")
        }
        let stamps = archives.map { folder in
            folder + ":"
                + ((try? fileSystem.readFile(
                    "\(path)/\(folder)/\(ArchiveFiles.snapshot)", limit: SnapshotFile.maximumLength))
                    .flatMap(SnapshotFile.stamp(of:)).map { "\($0.lastSequence)@\($0.position)" } ?? "none")
        }
        return segments + stamps
    }

    private static func checkOnce(
        _ path: String, _ archives: [String], _ context: ArchiveContext, _ fileSystem: any FileSystem
    ) -> [Report] {
        let index: LogIndex
        do {
            index = try LogIndex.read("\(path)/\(DataDirectory.log)", fileSystem: fileSystem)
        } catch {
            return archives.map {
                Report(archive: $0, problem: "the log cannot be read: \(error)", tornTail: nil, lastRecord: 0)
            }
        }
        let log = LogReader(directory: "\(path)/\(DataDirectory.log)", fileSystem: fileSystem, index: index)
        var reports = archives.map { folder in
            switch folder {
            case DataDirectory.accounts: report(AccountBook.self, folder, path, context, fileSystem, log)
            case DataDirectory.household: report(TodoList.self, folder, path, context, fileSystem, log)
            default: report(MemberArchive.self, folder, path, context, fileSystem, log)
            }
        }
        if let tail = index.tail {
            let torn = TornTail(
                journal: "\(DataDirectory.log)/\(LogSegment.name(generation: tail.generation))",
                bytes: tail.bytes.count, records: nil)
            let owners = Set(tail.keys.map(ArchiveKey.folder))
            var told = false
            for index in reports.indices where owners.contains(reports[index].archive) {
                reports[index].tornTail = torn
                told = true
            }
            if !told { reports.append(Report(archive: DataDirectory.log, problem: nil, tornTail: torn, lastRecord: 0)) }
        }
        return reports
    }

    private static func report<Model: ArchiveModel>(
        _ type: Model.Type, _ folder: String, _ path: String, _ context: ArchiveContext, _ fileSystem: any FileSystem,
        _ log: LogReader
    ) -> Report {
        do {
            let loaded = try DataDirectory.read(
                Model.self, folder, in: path, fileSystem: fileSystem, timeZones: context.timeZones, log: log)
            return Report(
                archive: folder, problem: nil, tornTail: nil, lastRecord: loaded.lastSequence,
                overCaps: (loaded.model as? MemberArchive)?.overCaps ?? [])
        } catch {
            return Report(archive: folder, problem: error.message, tornTail: nil, lastRecord: 0)
        }
    }

    /// Checks one archive of a directory of format 1 (per-archive journals), which the server
    /// moves to the shared log when it next starts: `kind` is its place in a data directory
    /// (`accounts`, `household` or `users/<id>`).
    static func checkLegacyArchive(
        _ kind: String, at directory: String, _ context: ArchiveContext, fileSystem: any FileSystem = PosixFileSystem()
    ) -> Report {
        switch kind {
        case DataDirectory.accounts: return checkLegacy(AccountBook.self, kind, directory, context, fileSystem)
        case DataDirectory.household: return checkLegacy(TodoList.self, kind, directory, context, fileSystem)
        default: return checkLegacy(MemberArchive.self, kind, directory, context, fileSystem)
        }
    }

    private static func checkLegacy<Model: ArchiveModel>(
        _ type: Model.Type, _ archive: String, _ directory: String, _ context: ArchiveContext,
        _ fileSystem: any FileSystem
    ) -> Report {
        let loader = LegacyArchiveLoader<Model>(
            fileSystem: fileSystem, directory: directory, context: context, expectation: .existing)
        switch Result(catching: { () throws(ArchiveError) in try loader.load() }) {
        case .success(let loaded):
            let overCaps = (loaded.model as? MemberArchive)?.overCaps ?? []
            let tail = loaded.currentJournal.flatMap { current in
                current.tornTail.map {
                    TornTail(
                        journal: ArchiveFiles.journal(generation: current.generation), bytes: $0.length,
                        records: $0.records)
                }
            }
            return Report(
                archive: archive, problem: nil, tornTail: tail, lastRecord: loaded.lastSequence, overCaps: overCaps)
        case .failure(let error):
            return Report(archive: archive, problem: error.message, tornTail: nil, lastRecord: 0)
        }
    }
}
