import Testing
import WaterCore
import WaterLog
import WaterSync
import WaterTestSupport

@testable import WaterStore

/// What the loader must notice (issue 13): every way a journal can go missing or come up short
/// that is not the torn last write of the newest journal.
@Suite("Damage detection")
struct DamageDetectionTests {
    static let directory = "/data/household"
    static func journalPath(_ generation: UInt64) -> String {
        "\(directory)/\(ArchiveFiles.journal(generation: generation))"
    }

    static func record(_ n: Int) -> [UInt8] {
        TodoList.encodeRecord(
            .added(TodoItem(id: id(n), text: "task \(n)", addedBy: 1, addedAtUnixMilliseconds: workloadStart)),
            sequence: UInt64(n))
    }

    /// Journal `generation`: `frames` (each a list of record numbers) after record `startsAfter`,
    /// sealed when `sealed`.
    static func journal(_ generation: UInt64, startsAfter: UInt64, frames: [[Int]], sealed: Bool) -> [UInt8] {
        var bytes = JournalFile.segment(
            kind: .household, generation: generation, startsAfter: startsAfter, length: 2048)
        var offset = JournalFile.headerLength
        var written = frames.map { JournalFile.frame(records: $0.map(record)) }
        if sealed {
            written.append(JournalFile.seal(nextGeneration: generation + 1, lastSequence: UInt64(frames.last!.last!)))
        }
        for frame in written {
            bytes.replaceSubrange(offset..<(offset + frame.count), with: frame)
            offset += frame.count
        }
        return bytes
    }

    /// A data directory whose household archive is journal 1 (records 1-5, sealed) and journal
    /// 2 (records 6-8, being appended to): the state between a rotation and its compaction.
    static func twoJournals() throws -> SimulatedDisk {
        let disk = SimulatedDisk()
        try openStore(disk.fileSystem()).close()
        let fileSystem = disk.fileSystem()
        try fileSystem.replaceFile(
            journalPath(1), with: journal(1, startsAfter: 0, frames: [[1, 2], [3], [4, 5]], sealed: true),
            mode: 0o600)
        try fileSystem.replaceFile(
            journalPath(2), with: journal(2, startsAfter: 5, frames: [[6], [7, 8]], sealed: false),
            mode: 0o600)
        return disk
    }

    /// Opens the directory and returns why the household archive is protected, or its items.
    static func open(_ disk: SimulatedDisk, logger: Logger = .silent) throws -> Result<[Int], ArchiveError> {
        var options = StoreOptions()
        options.compactionThreshold = 2048
        let store = try FileArchiveStore(
            path: "/data", fileSystem: disk.crash(), options: options, logger: logger,
            owner: "test")
        defer { store.close() }
        if let protection = store.household.protection { return .failure(protection) }
        let items = try store.household.read { $0.items.map(\.text) }
        return .success(items.map { Int($0.dropFirst(5))! })
    }

    static func protection(_ disk: SimulatedDisk) throws -> String {
        guard case .failure(let error) = try open(disk) else { return "not protected" }
        return error.message
    }

    @Test("the two journals between a rotation and its compaction load whole")
    func intact() throws {
        #expect(try Self.open(Self.twoJournals()).get() == Array(1...8))
    }

    @Test("the newest journal cut halfway is refused, not read as a shorter history")
    func newestCutHalfway() throws {
        let disk = try Self.twoJournals()
        disk.overwrite(
            Self.journalPath(2), with: Array(disk.contents(under: Self.journalPath(2)).values.first!.prefix(1024)))
        #expect(
            try Self.protection(disk).contains(
                "journal-0000000000000002 is 1024 bytes long but was made 2048 bytes long"))
    }

    @Test("a journal that is not the newest and ends early is refused")
    func olderEndsEarly() throws {
        let disk = try Self.twoJournals()
        // Its last frame and seal zeroed: the file keeps its length, but records 4 and 5 are gone.
        disk.overwrite(
            Self.journalPath(1), with: Self.journal(1, startsAfter: 0, frames: [[1, 2], [3]], sealed: false))
        #expect(try Self.protection(disk).contains("without the seal"))
    }

    @Test("the current journal deleted is found missing, whether the snapshot or the journal before names it")
    func deletedNewest() throws {
        let disk = try Self.twoJournals()
        disk.remove(Self.journalPath(2))
        #expect(
            try Self.protection(disk).contains("journal-0000000000000002 is missing: journal-0000000000000001 says"))

        let compacted = SimulatedDisk()
        let store = try openStore(compacted.fileSystem())
        var expected = Expected()
        for n in 0..<5 { run(.todo(n: n), on: store, expecting: &expected) }
        store.household.compact()
        store.close()
        let names = compacted.contents(under: Self.directory).keys.sorted()
        #expect(names == ["\(Self.directory)/journal-0000000000000002", "\(Self.directory)/snapshot"])
        compacted.remove(Self.journalPath(2))
        #expect(try Self.protection(compacted).contains("journal-0000000000000002 is missing: the snapshot says"))
    }

    @Test("an older journal deleted is a gap in the generations")
    func deletedOlder() throws {
        let disk = try Self.twoJournals()
        disk.remove(Self.journalPath(1))
        #expect(try Self.protection(disk).contains("journal-0000000000000001 is missing"))
    }

    @Test("an archive whose every file was deleted is refused once its directory exists")
    func everythingDeleted() throws {
        let disk = try Self.twoJournals()
        disk.remove(Self.journalPath(1))
        disk.remove(Self.journalPath(2))
        #expect(try Self.protection(disk).contains("has no snapshot and no journal"))
    }

    @Test("an empty member folder: a listed member's files gone missing, or an add a crash cut short, reused")
    func emptyMemberFolders() throws {
        let disk = SimulatedDisk()
        let setup = try openStore(disk.fileSystem())
        // The accounts list member 1, whose folder then loses every file.
        try setup.accounts.commitAndWait { book in
            [
                try book.validateAdd(
                    username: "ann", displayName: "Ann", role: .member, timeZone: .utc,
                    passwordHash: "not a real hash", now: workloadStart)
            ]
        }
        setup.close()
        let fileSystem = disk.fileSystem()
        for id in [1, 7] {
            try fileSystem.createDirectory("/data/users/\(id)", mode: 0o700)
        }
        try fileSystem.syncDirectory("/data/users")
        let store = try openStore(disk.crash())
        #expect(store.member(1)?.protection?.message.contains("has no snapshot and no journal") == true)
        // Member 7 is in no account: an add cut short. It reads as empty and takes writes.
        #expect(store.member(7)?.protection == nil)
        var expected = Expected()
        #expect(run(.log(member: 7, n: 1, amount: 250), on: store, expecting: &expected))
        store.close()
        #expect(try openStore(disk.crash()).member(7)!.read { $0 } == expected.members[7])
    }

    @Test("records out of order or repeated are refused with the sequence numbers")
    func outOfOrder() throws {
        let disk = try Self.twoJournals()
        disk.overwrite(
            Self.journalPath(2), with: Self.journal(2, startsAfter: 5, frames: [[6], [8, 7]], sealed: false))
        #expect(try Self.protection(disk).contains("skips from record 6 to 8"))
        disk.overwrite(
            Self.journalPath(2), with: Self.journal(2, startsAfter: 4, frames: [[6], [7, 8]], sealed: false))
        #expect(try Self.protection(disk).contains("starts after record 4, but the records before it end at 5"))
    }

    @Test("a crash between making the next journal and sealing the last loads, and the seal is finished")
    func unfinishedSeal() throws {
        for kept in [0, 7, JournalFile.sealLength - 1] {
            let disk = SimulatedDisk()
            try openStore(disk.fileSystem()).close()
            let fileSystem = disk.fileSystem()
            var first = Self.journal(1, startsAfter: 0, frames: [[1, 2], [3]], sealed: true)
            let sealStart =
                JournalFile.headerLength + JournalFile.frame(records: [Self.record(1), Self.record(2)]).count
                + JournalFile.frame(records: [Self.record(3)]).count
            first.replaceSubrange(
                (sealStart + kept)..<(sealStart + JournalFile.sealLength),
                with: [UInt8](repeating: 0, count: JournalFile.sealLength - kept))
            try fileSystem.replaceFile(Self.journalPath(1), with: first, mode: 0o600)
            try fileSystem.replaceFile(
                Self.journalPath(2), with: Self.journal(2, startsAfter: 3, frames: [], sealed: false),
                mode: 0o600)
            #expect(try Self.open(disk).get() == [1, 2, 3], "seal bytes kept: \(kept)")
            let sealed = try JournalFile.read(
                disk.contents(under: Self.journalPath(1)).values.first!, kind: .household, path: "j")
            #expect(sealed.seal?.nextGeneration == 2 && sealed.seal?.lastSequence == 3)
        }
    }

    @Test("a torn write at the end of the newest journal is cut, and the log says how much")
    func tornTailLogged() throws {
        let disk = try Self.twoJournals()
        var newest = Self.journal(2, startsAfter: 5, frames: [[6], [7, 8]], sealed: false)
        let end =
            JournalFile.headerLength + JournalFile.frame(records: [Self.record(6)]).count
            + JournalFile.frame(records: [Self.record(7), Self.record(8)]).count
        newest[end - 4] ^= 0xff  // the last frame's checksum fails: it never reached the disk whole
        disk.overwrite(Self.journalPath(2), with: newest)
        let lines = Locked<[String]>([])
        let logger = Logger(minimumLevel: .warning) { line in lines.withLock { $0.append(line) } }
        #expect(try Self.open(disk, logger: logger).get() == [1, 2, 3, 4, 5, 6])
        let cut = try #require(lines.withLock { $0 }.first { $0.contains("journal tail cut") })
        let start = end - JournalFile.frame(records: [Self.record(7), Self.record(8)]).count
        let tornBytes = newest[..<end].lastIndex { $0 != 0 }! + 1 - start
        #expect(cut.contains("bytes=\(tornBytes)") && cut.contains("records=2"), "\(cut)")
        // Cut means zeroed: the next load finds no tail at all.
        #expect(try Self.open(disk).get() == [1, 2, 3, 4, 5, 6])
    }
}
