import Glibc
import WaterCore
import WaterSystem

/// The store's readers of bytes from disk, as the fuzzer (`scripts/fuzz`, module WaterFuzzing)
/// and its corpus replay drive them: a snapshot file, and a segment of the shared log read by
/// the real loader (the log's index, then each archive's chunks decoded and applied), all from
/// files held in memory. A damaged file must give an error, never a crash, a hang or an
/// archive that breaks its own checks.
package enum StoreFuzzing {
    /// A snapshot file's bytes, read as each kind of archive; how many loads succeeded.
    @discardableResult
    package static func loadSnapshot(_ bytes: [UInt8], timeZones: any TimeZoneSource) -> Int {
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        return load(
            files: ["\(folder(.member))/\(ArchiveFiles.snapshot)": bytes], as: MemberArchive.self, .member, context)
            + load(
                files: ["\(folder(.household))/\(ArchiveFiles.snapshot)": bytes], as: TodoList.self, .household, context
            )
            + load(
                files: ["\(folder(.accounts))/\(ArchiveFiles.snapshot)": bytes], as: AccountBook.self, .accounts,
                context)
    }

    /// A log segment's bytes (generation 1), read for each archive with no snapshot yet; how
    /// many loads succeeded.
    @discardableResult
    package static func loadLog(_ bytes: [UInt8], timeZones: any TimeZoneSource) -> Int {
        let segment = "\(DataDirectory.log)/\(LogSegment.name(generation: 1))"
        let context = ArchiveContext(defaultTimeZone: .utc, timeZones: timeZones)
        return load(files: [segment: bytes], as: MemberArchive.self, .member, context)
            + load(files: [segment: bytes], as: TodoList.self, .household, context)
            + load(files: [segment: bytes], as: AccountBook.self, .accounts, context)
    }

    /// Real snapshots of each kind: a member with drinks, goals and a habit, a todo list, the
    /// accounts with a member and a session.
    package static func snapshotSeeds() -> [[UInt8]] {
        let (member, household, accounts) = sampleArchives()
        return [
            snapshot(of: member, lastSequence: 7), snapshot(of: household, lastSequence: 3),
            snapshot(of: accounts, lastSequence: 2),
        ]
    }

    /// Real segments: a header and frames of records of each kind, one frame and several.
    package static func logSeeds() -> [[UInt8]] {
        let records = sampleRecords()
        var seeds: [[UInt8]] = []
        for frames in [1, 3] {
            var body: [UInt8] = []
            var sequence: [UInt64: UInt64] = [:]
            for index in 0..<frames {
                var gathered: [UInt8] = []
                var chunks: [(key: UInt64, firstSequence: UInt64, recordCount: Int, bytes: Range<Int>)] = []
                for (key, keyRecords) in records {
                    let start = gathered.count
                    let mine = keyRecords.enumerated().filter { $0.offset % frames == index }.map(\.element)
                    guard !mine.isEmpty else { continue }
                    let first = (sequence[key] ?? 0) + 1
                    for (offset, record) in mine.enumerated() {
                        LogFrame.appendRecord(record(first + UInt64(offset)), to: &gathered)
                    }
                    sequence[key] = first + UInt64(mine.count) - 1
                    chunks.append((key, first, mine.count, start..<gathered.count))
                }
                var frame: [UInt8] = []
                gathered.withUnsafeBytes { LogFrame.encode(chunks: chunks, records: $0, into: &frame) }
                body += frame
            }
            let length = LogSegment.headerLength + body.count
            seeds.append(LogSegment.header(generation: 1, length: length, previousEnd: 0) + body)
        }
        return seeds
    }

    // MARK: The harness

    private static func folder(_ kind: ArchiveKind) -> String {
        switch kind {
        case .member: "\(DataDirectory.users)/1"
        case .household: DataDirectory.household
        case .accounts: DataDirectory.accounts
        }
    }

    private static let root = "/fuzz"

    private static func load<Model: ArchiveModel>(
        files: [String: [UInt8]], as type: Model.Type, _ kind: ArchiveKind, _ context: ArchiveContext
    ) -> Int {
        let all = Dictionary(uniqueKeysWithValues: files.map { ("\(root)/\($0.key)", $0.value) })
        let fileSystem = MemoryFiles(
            files: all, directories: [folder(kind), DataDirectory.log, DataDirectory.users].map { "\(root)/\($0)" })
        var loads = 0
        for expectation in [ArchiveExpectation.existing, .newOrExisting] {
            guard
                let loaded = try? DataDirectory.read(
                    Model.self, folder(kind), in: root, fileSystem: fileSystem, timeZones: context.timeZones,
                    expectation: expectation)
            else { continue }
            precondition(loaded.model.isValid, "\(Model.self) loaded from damaged bytes breaks its checks")
            // What loaded must survive its own snapshot.
            let body = loaded.model.encodeSnapshot(lastSequence: loaded.lastSequence, journalGeneration: 1)
            guard
                let again = try? Model.decodeSnapshot(body, version: Model.snapshotVersion, context: context)
            else { preconditionFailure("\(Model.self) does not read the snapshot it wrote") }
            precondition(again.archive.isValid, "\(Model.self)'s own snapshot breaks its checks")
            loads += 1
        }
        return loads
    }

    private static func snapshot<Model: ArchiveModel>(of model: Model, lastSequence: UInt64) -> [UInt8] {
        SnapshotFile.encode(
            body: model.encodeSnapshot(lastSequence: lastSequence, journalGeneration: 1),
            version: Model.snapshotVersion, kind: Model.kind,
            stamp: SnapshotFile.Stamp(lastSequence: lastSequence, position: .start))
    }

    private static let now: Int64 = 1_764_504_000_000

    private static func id(_ low: UInt64) -> RecordID { RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: low) }

    private static func memberMutations() -> [MemberMutation] {
        [
            .water(.logged(WaterEntry(id: id(1), amountMillilitres: 250, unixMilliseconds: now))),
            .water(.logged(WaterEntry(id: id(2), amountMillilitres: 350, unixMilliseconds: now + 60_000))),
            .water(.edited(WaterEntry(id: id(2), amountMillilitres: 300, unixMilliseconds: now + 60_000))),
            .water(.goalSet(2500, from: MemberTimeZone.utc.date(atUnixMilliseconds: now))),
            .water(.usualCupSet(330)),
            .habit(.added(Habit(id: id(3), name: "read", icon: .book, color: .blue, createdAtUnixMilliseconds: now))),
            .habit(.checked(id(3), MemberTimeZone.utc.date(atUnixMilliseconds: now))),
            .water(.deleted(id(1))),
        ]
    }

    private static var today: LocalDate { MemberTimeZone.utc.date(atUnixMilliseconds: now) }

    private static func todoMutations() -> [TodoMutation] {
        [
            .added(TodoItem(id: id(10), text: "buy water filters", addedBy: 1, addedAtUnixMilliseconds: now)),
            .added(TodoItem(id: id(11), text: "descale the kettle", addedBy: 1, addedAtUnixMilliseconds: now)),
            .completionSet(id(10), done: true, by: 1, atUnixMilliseconds: now + 1),
            .moved(id(11), toPosition: 0),
            .added(
                TodoItem(
                    id: id(12), text: "bins out", addedBy: 1, addedAtUnixMilliseconds: now,
                    chore: Chore(due: today, dueMinute: 1140, recurrence: .weeks(1), assignee: 1, rotation: [1, 2]))),
            .occurrenceDone(
                TodoCompletion(
                    itemID: id(12), due: today, doneBy: 2, turnOf: 1, markedBy: nil, atUnixMilliseconds: now),
                next: today.adding(days: 7), nextTurn: 2),
            .occurrenceReopened(id(12), due: today, turn: 1),
        ]
    }

    private static func accountMutations() -> [AccountMutation] {
        let mum = Account(
            id: 1, username: "mum", displayName: "Mum", role: .admin, timeZone: .utc,
            passwordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g", createdAtUnixMilliseconds: now)
        var dad = mum
        (dad.id, dad.username, dad.displayName, dad.role) = (2, "dad", "Dad", .member)
        let digest = TokenDigest(bytes: [UInt8](repeating: 0xA5, count: 32))!
        return [
            .added(mum), .added(dad),
            .sessionStarted(Session(digest: digest, memberID: 2, expiresAtUnixMilliseconds: now + 86_400_000)),
            .removed(memberID: 2, atUnixMilliseconds: 1_796_040_000_000),
        ]
    }

    private static func sampleArchives() -> (MemberArchive, TodoList, AccountBook) {
        var member = MemberArchive(timeZone: .utc)
        memberMutations().forEach { member.apply($0) }
        var household = TodoList()
        todoMutations().forEach { household.apply($0) }
        var accounts = AccountBook()
        accountMutations().forEach { accounts.apply($0) }
        return (member, household, accounts)
    }

    /// Each archive key's records, each encoded once its sequence number is known.
    private static func sampleRecords() -> [(UInt64, [(UInt64) -> [UInt8]])] {
        [
            (ArchiveKey.member(1), memberMutations().map { m in { MemberArchive.encodeRecord(m, sequence: $0) } }),
            (ArchiveKey.household, todoMutations().map { m in { TodoList.encodeRecord(m, sequence: $0) } }),
            (ArchiveKey.accounts, accountMutations().map { m in { AccountBook.encodeRecord(m, sequence: $0) } }),
        ]
    }
}

/// Files held in memory, read only: what the fuzzer hands the loader. Writing fails (EROFS).
private struct MemoryFiles: FileSystem {
    let files: [String: [UInt8]]
    let directories: Set<String>

    init(files: [String: [UInt8]], directories: [String]) {
        self.files = files
        self.directories = Set(directories)
    }

    private func refuse(_ operation: String, _ path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, errno: EROFS)
    }

    func createDirectory(_ path: String, mode: UInt32) throws(FileSystemError) {
        guard directories.contains(path) else { throw refuse("mkdir", path) }
    }

    func listDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard directories.contains(path) else { throw FileSystemError(operation: "opendir", path: path, errno: ENOENT) }
        let prefix = path + "/"
        return files.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }.map {
            String($0.dropFirst(prefix.count))
        }.sorted()
    }

    func fileExists(_ path: String) -> Bool { files[path] != nil || directories.contains(path) }

    func readFile(_ path: String, limit: Int) throws(FileSystemError) -> [UInt8] {
        guard let bytes = files[path] else { throw FileSystemError(operation: "open", path: path, errno: ENOENT) }
        guard bytes.count <= limit else { throw FileSystemError(operation: "read", path: path, errno: EFBIG) }
        return bytes
    }

    func open(_ path: String, create: Bool, mode: UInt32) throws(FileSystemError) -> FileHandleID {
        throw refuse("open", path)
    }
    func write(_ handle: FileHandleID, _ bytes: [UInt8], at offset: Int) throws(FileSystemError) {
        throw refuse("write", "\(handle.raw)")
    }
    func size(_ handle: FileHandleID) throws(FileSystemError) -> Int { throw refuse("fstat", "\(handle.raw)") }
    func truncate(_ handle: FileHandleID, to length: Int) throws(FileSystemError) {
        throw refuse("ftruncate", "\(handle.raw)")
    }
    func sync(_ handle: FileHandleID) throws(FileSystemError) { throw refuse("fdatasync", "\(handle.raw)") }
    func close(_ handle: FileHandleID) {}
    func rename(_ source: String, to destination: String) throws(FileSystemError) { throw refuse("rename", source) }
    func remove(_ path: String) throws(FileSystemError) { throw refuse("unlink", path) }
    func syncDirectory(_ path: String) throws(FileSystemError) { throw refuse("fsync", path) }
    func lockExclusively(_ path: String, owner: String) throws(FileSystemError) -> FileHandleID {
        throw refuse("flock", path)
    }
    func lockHolder(_ path: String) -> String? { nil }
}
