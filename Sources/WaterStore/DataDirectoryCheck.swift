import Glibc
import WaterCore

/// Verifies a data directory by reading it, and only reading it: no lock is taken, no tail is
/// cut, nothing is created, so it changes no byte and works while a server is running.
///
/// A running server may rotate or compact an archive while it is read; the check then finds a
/// file gone, or a listing that changed under it, and reads that archive again.
public enum DataDirectoryCheck {
    /// What was found in one archive.
    /// `water-server check --json` prints these with the field names below.
    public struct Report: Sendable, Hashable, Encodable {
        /// The archive's folder, relative to the data directory (`accounts`, `users/3`, ...).
        public var archive: String
        /// Why it cannot be loaded (the server protects it), or nil when it loads.
        public var problem: String?
        /// A write at the end of the newest journal that never completed: never acknowledged,
        /// cut when the archive is next loaded. While the server runs, a write in flight.
        public var tornTail: TornTail?
        /// The sequence number of its last record: how many writes it has seen.
        public var lastRecord: UInt64

        enum CodingKeys: String, CodingKey {
            case archive, problem
            case tornTail = "torn_tail"
            case lastRecord = "last_record"
        }
    }

    public struct TornTail: Sendable, Hashable, Encodable {
        public var journal: String
        public var bytes: Int
        /// How many records its bytes still delimit; nil when its frame header was lost too.
        public var records: Int?
    }

    /// Checks every archive of the data directory at `path`.
    /// - Throws: when `path` is not a data directory of a format this code reads.
    public static func run(_ path: String, fileSystem: any FileSystem = PosixFileSystem()) throws(ArchiveError)
        -> [Report]
    {
        guard fileSystem.fileExists("\(path)/\(DataDirectory.formatFile)") else {
            throw ArchiveError(.ioFailure, "\(path) is not a water data directory (it has no format file)")
        }
        _ = try DataDirectory.checkFormat(path, fileSystem: fileSystem)
        let archives: [String]
        do {
            archives = try DataDirectory.archives(in: path, fileSystem: fileSystem)
        } catch {
            throw ArchiveError(error)
        }
        var reports: [Report] = []
        var members: [Account] = []
        for archive in archives {
            let directory = "\(path)/\(archive)"
            if archive == DataDirectory.accounts {
                let (report, book) = check(AccountBook.self, archive, directory, context, fileSystem)
                members = book?.members ?? []
                reports.append(report)
            } else {
                reports.append(checkArchive(archive, at: directory, fileSystem: fileSystem))
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
                    archive: "\(DataDirectory.users)/\(member.id)",
                    problem: "\(member.username)'s archive is missing: the accounts list them, "
                        + "but \(path)/\(DataDirectory.users)/\(member.id) does not exist",
                    tornTail: nil, lastRecord: 0))
        }
        return reports
    }

    /// Checks one archive folder, `kind` being its place in a data directory (`accounts`,
    /// `household` or `users/<id>`).
    public static func checkArchive(
        _ kind: String, at directory: String, fileSystem: any FileSystem = PosixFileSystem()
    )
        -> Report
    {
        switch kind {
        case DataDirectory.accounts: return check(AccountBook.self, kind, directory, context, fileSystem).report
        case DataDirectory.household: return check(TodoList.self, kind, directory, context, fileSystem).report
        default: return check(MemberArchive.self, kind, directory, context, fileSystem).report
        }
    }

    /// The household's time zone only matters to an empty archive, which `.existing` refuses.
    private static let context = ArchiveContext(defaultTimeZone: .utc)

    /// Loads one archive read-only, again while a running server changes it underneath.
    private static func check<Model: ArchiveModel>(
        _ type: Model.Type, _ archive: String, _ directory: String, _ context: ArchiveContext,
        _ fileSystem: any FileSystem
    ) -> (report: Report, model: Model?) {
        let loader = ArchiveLoader<Model>(
            fileSystem: fileSystem, directory: directory, context: context,
            expectation: .existing)
        var outcome: Result<ArchiveLoader<Model>.LoadedArchive, ArchiveError> = .failure(ArchiveError(.vanished, ""))
        for _ in 0..<20 {
            let before = try? fileSystem.listDirectory(directory)
            outcome = Result { () throws(ArchiveError) in try loader.load() }
            let after = try? fileSystem.listDirectory(directory)
            if case .failure(let error) = outcome, error.code == .vanished { continue }
            if before == after { break }
        }
        switch outcome {
        case .success(let loaded):
            let tail = loaded.currentJournal.flatMap { current in
                current.tornTail.map {
                    TornTail(
                        journal: ArchiveFiles.journal(generation: current.generation), bytes: $0.length,
                        records: $0.records)
                }
            }
            return (
                Report(archive: archive, problem: nil, tornTail: tail, lastRecord: loaded.lastSequence), loaded.model
            )
        case .failure(let error):
            return (Report(archive: archive, problem: error.message, tornTail: nil, lastRecord: 0), nil)
        }
    }
}
