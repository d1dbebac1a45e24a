import Glibc
import Testing
import WaterCore
import WaterSystem
import WaterZoneInfo

@testable import WaterStore

/// `water-server repair` and the read-only check, on real files in a temporary directory.
@Suite("Repair and check")
struct RepairTests {
    typealias Damage = DamageDetectionTests

    /// A data directory on disk with members 1 and 2 and the log of ``DamageDetectionTests``'s
    /// two segments, `change`d.
    static func dataDirectory(_ change: (inout [[UInt8]], inout [[UInt8]]) -> Void = { _, _ in }) throws -> String {
        let path = temporaryDirectory() + "/data"
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        _ = try store.createMember(1)
        _ = try store.createMember(2)
        store.close()
        var first = [
            Damage.frame([(Damage.ann, [1, 2]), (Damage.household, [1])]), Damage.frame([(Damage.ben, [1])]),
            Damage.frame([(Damage.household, [2, 3]), (Damage.ann, [3])]),
        ]
        var second = [Damage.frame([(Damage.ben, [2]), (Damage.ann, [4])]), Damage.frame([(Damage.household, [4])])]
        change(&first, &second)
        let one = Damage.segment(1, previousEnd: 0, first)
        let fileSystem = PosixFileSystem()
        for name in try fileSystem.listDirectory("\(path)/log") { try fileSystem.remove("\(path)/log/\(name)") }
        try fileSystem.replaceFile("\(path)/log/\(LogSegment.name(generation: 1))", with: one.bytes, mode: 0o600)
        try fileSystem.replaceFile(
            "\(path)/log/\(LogSegment.name(generation: 2))",
            with: Damage.segment(2, previousEnd: one.starts.last! + first.last!.count, second).bytes, mode: 0o600)
        return path
    }

    static func items(_ path: String) throws -> [String] {
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        return try store.household.read { $0.items.map(\.text) }
    }

    static func files(_ directory: String) throws -> [String: [UInt8]] {
        let fileSystem = PosixFileSystem()
        var files: [String: [UInt8]] = [:]
        for name in try fileSystem.listDirectory(directory) {
            var info = stat()
            guard stat("\(directory)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files[name] = try fileSystem.readFile("\(directory)/\(name)", limit: 1 << 30)
        }
        return files
    }

    @Test(
        "a damaged chunk and a gap: every record of the archive that verifies is kept, in order, and the originals are kept aside"
    )
    func repairKeepsWhatVerifies() throws {
        // The household's records 2-3 are damaged (their chunk fails its checksum).
        let path = try Self.dataDirectory { first, _ in
            first[2][LogFrame.headerLength + 2 * LogFrame.entryLength + 8] ^= 0x40
        }
        defer { removeTree(String(path.dropLast(5))) }
        let before = try Self.files("\(path)/household")
        let reports = try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system)
        #expect(
            reports.first { $0.archive == "household" }?.problem?.contains("its records 2-3") == true,
            "\(reports.map { "\($0.archive): \($0.problem ?? "ok")" })")
        #expect(reports.filter { $0.problem != nil }.count == 1, "Ann's records are in the same frame, and intact")

        let outcome = try ArchiveRepair.repair("household", in: path, now: 1_800_000_000, timeZones: ZoneInfo.system)
        #expect(outcome.kept.contains("2 records in the log, up to record 4"), "\(outcome.kept)")
        #expect(outcome.dropped.contains { $0.contains("records 2-3") && $0.contains("damaged") }, "\(outcome.dropped)")
        #expect(outcome.dropped.contains("records 2-3, which are nowhere to be found"), "\(outcome.dropped)")
        #expect(outcome.keptAside == "\(path)/household.damaged-1800000000")
        let aside = try Self.files(outcome.keptAside)
        #expect(aside["snapshot"] == before["snapshot"], "the original kept byte for byte")
        #expect(aside.keys.contains("log-0000000000000001"), "with the log that held its records")

        #expect(try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system).allSatisfy { $0.problem == nil })
        #expect(try Self.items(path) == [1, 4].map { "task \($0)" })
        // The others are as they were, and everyone writes on.
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        #expect(try store.member(1)!.read { $0.water.entries.map(\.amountMillilitres) } == [1, 2, 3, 4])
        try store.household.commitAndWait { list in
            [try list.validateAdd(id: id(9), text: "task 9", by: 1, now: workloadStart)!]
        }
        store.close()
        #expect(try Self.items(path) == [1, 4, 9].map { "task \($0)" })
    }

    @Test("an archive still in the journals of format 1 that did not read is rebuilt from what verifies")
    func repairLegacy() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(String(path.dropLast(5))) }
        let legacy = LegacyDirectory(steps: Step.script(count: 80, seed: 9))
        try legacy.write(at: path, fileSystem: PosixFileSystem())
        let journal = "\(path)/users/1/\(ArchiveFiles.journal(generation: 2))"
        var bytes = try PosixFileSystem().readFile(journal, limit: 1 << 20)
        bytes[JournalFile.headerLength + 20] ^= 0x02
        try PosixFileSystem().replaceFile(journal, with: bytes, mode: 0o600)
        try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test").close()  // migrates the others
        #expect(
            try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system).filter { $0.problem != nil }.map(\.archive)
                == ["users/1"])
        let outcome = try ArchiveRepair.repair("users/1", in: path, now: 1_800_000_000, timeZones: ZoneInfo.system)
        #expect(outcome.dropped.contains { $0.contains("damaged bytes") }, "\(outcome.dropped)")
        #expect(try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system).allSatisfy { $0.problem == nil })
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        let entries = try store.member(1)!.read { $0.water.entries }
        #expect(!entries.isEmpty && entries.count < legacy.expected.members[1]!.water.entries.count)
        #expect(try store.member(2)!.read { $0 } == legacy.expected.members[2])
    }

    @Test("check changes no byte, cuts no torn tail and reports it; a second check finds the same")
    func checkOnlyReads() throws {
        let path = try Self.dataDirectory { _, second in
            // A torn write: the last frame reached the disk up to its chunk, the rest is still zeros.
            for index in (second[1].count - 40)..<second[1].count { second[1][index] = 0 }
        }
        defer { removeTree(String(path.dropLast(5))) }
        let before = try Self.files("\(path)/log")
        let reports = try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system)
        let household = try #require(reports.first { $0.archive == "household" })
        #expect(household.problem == nil && household.lastRecord == 3)
        #expect(household.tornTail?.journal == "log/0000000000000002", "\(household)")
        #expect(try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system) == reports)
        #expect(try Self.files("\(path)/log") == before)
    }

    @Test(
        "issue 31: check reports a bit flipped inside the newest frame, written whole, as damage, not as a torn write")
    func checkNewestFrameDamage() throws {
        let path = try Self.dataDirectory { _, second in second[1][second[1].count - 40] ^= 0x01 }
        defer { removeTree(String(path.dropLast(5))) }
        let household = try #require(
            try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system).first { $0.archive == "household" })
        #expect(household.tornTail == nil, "\(household)")
        #expect(household.problem?.contains("its records 4-4 in log 0000000000000002") == true, "\(household)")
    }

    @Test(
        "check: a member in the accounts without an archive is damage; an empty folder an interrupted add left is not")
    func membersAndFolders() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(String(path.dropLast(5))) }
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        for name in ["ann", "bob"] {
            try store.accounts.commitAndWait { book in
                let mutation = try book.validateAdd(
                    username: name, displayName: name, role: .member, timeZone: .utc,
                    passwordHash: "not a real hash", now: workloadStart)
                if case .added(let account) = mutation { _ = try store.createMember(account.id) }
                return [mutation]
            }
        }
        store.close()
        #expect(rmdir("\(path)/users/2") != 0)  // not empty: it has its snapshot
        removeTree("\(path)/users/2")
        #expect(mkdir("\(path)/users/9", 0o700) == 0)
        let reports = try DataDirectoryCheck.run(path, timeZones: ZoneInfo.system)
        #expect(reports.first { $0.archive == "users/2" }?.problem?.contains("bob's archive is missing") == true)
        #expect(reports.first { $0.archive == "users/9" }?.problem == nil)
        #expect(reports.filter { $0.problem != nil }.count == 1)
    }
}
