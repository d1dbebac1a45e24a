import Glibc
import Testing
import WaterCore

@testable import WaterStore

/// `water-server repair` and the read-only check, on real files in a temporary directory.
@Suite("Repair and check")
struct RepairTests {
    typealias Damage = DamageDetectionTests

    /// A data directory on disk whose household archive is written by hand.
    static func dataDirectory(household journals: [(UInt64, [UInt8])]) throws -> String {
        let path = temporaryDirectory() + "/data"
        try FileArchiveStore(path: path, owner: "test").close()
        let fileSystem = PosixFileSystem()
        try fileSystem.remove("\(path)/household/journal-0000000000000001")
        for (generation, bytes) in journals {
            try fileSystem.replaceFile(
                "\(path)/household/\(ArchiveFiles.journal(generation: generation))", with: bytes,
                mode: 0o600)
        }
        return path
    }

    static func items(_ path: String) throws -> [String] {
        let store = try FileArchiveStore(path: path, owner: "test")
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
        "records out of order, a damaged frame and a gap: every record that verifies is kept, in order, and the originals are kept aside"
    )
    func repairKeepsWhatVerifies() throws {
        // Journal 1 holds records 1-5 with 3 and 2 swapped (the bug of two connections) and is
        // sealed; journal 2 holds 6, a damaged frame (7), then 8 and 9.
        var second = Damage.journal(2, startsAfter: 5, frames: [[6], [7], [8, 9]], sealed: false)
        let damagedAt = JournalFile.headerLength + JournalFile.frame(records: [Damage.record(6)]).count + 20
        second[damagedAt] ^= 0x40
        let path = try Self.dataDirectory(household: [
            (1, Damage.journal(1, startsAfter: 0, frames: [[1], [3, 2], [4, 5]], sealed: true)), (2, second),
        ])
        defer { removeTree(String(path.dropLast(5))) }
        let before = try Self.files("\(path)/household")
        #expect(
            try DataDirectoryCheck.run(path).first { $0.archive == "household" }?.problem?.contains(
                "journal-0000000000000002 has a damaged record") == true)

        let outcome = try ArchiveRepair.repair("household", in: path, now: 1_800_000_000)
        #expect(outcome.kept.contains("1 records that were out of order, put back in order"))
        #expect(outcome.kept.contains("8 journal records, up to record 9"))
        #expect(outcome.dropped.contains { $0.hasPrefix("journal-0000000000000002: ") && $0.contains("damaged bytes") })
        #expect(outcome.dropped.contains("record 7, which is in no journal"))
        #expect(outcome.keptAside == "\(path)/household.damaged-1800000000")
        #expect(try Self.files(outcome.keptAside) == before, "the originals are kept byte for byte")

        #expect(try DataDirectoryCheck.run(path).allSatisfy { $0.problem == nil })
        #expect(try Self.items(path) == [1, 2, 3, 4, 5, 6, 8, 9].map { "task \($0)" })
    }

    @Test("a newest journal cut halfway: the records before the cut are kept")
    func repairCutJournal() throws {
        let whole = Damage.journal(1, startsAfter: 0, frames: (1...30).map { [$0] }, sealed: false)
        let path = try Self.dataDirectory(household: [(1, Array(whole.prefix(700)))])
        defer { removeTree(String(path.dropLast(5))) }
        #expect(
            try DataDirectoryCheck.run(path).first { $0.archive == "household" }?.problem?.contains("cut short") == true
        )
        let outcome = try ArchiveRepair.repair("household", in: path, now: 1_800_000_000)
        let kept = try Self.items(path)
        #expect(!kept.isEmpty && kept == (1...kept.count).map { "task \($0)" })
        #expect(outcome.kept.contains("\(kept.count) journal records, up to record \(kept.count)"))
        #expect(try DataDirectoryCheck.run(path).allSatisfy { $0.problem == nil })
    }

    @Test("check changes no byte, cuts no torn tail and reports it; a second check finds the same")
    func checkOnlyReads() throws {
        var newest = Damage.journal(1, startsAfter: 0, frames: [[1], [2, 3]], sealed: false)
        let end =
            JournalFile.headerLength + JournalFile.frame(records: [Damage.record(1)]).count
            + JournalFile.frame(records: [Damage.record(2), Damage.record(3)]).count
        newest[end - 2] ^= 0x01
        let path = try Self.dataDirectory(household: [(1, newest)])
        defer { removeTree(String(path.dropLast(5))) }
        let before = try Self.files(path).merging(try Self.files("\(path)/household")) { a, _ in a }
        let reports = try DataDirectoryCheck.run(path)
        let household = try #require(reports.first { $0.archive == "household" })
        #expect(household.problem == nil && household.lastRecord == 1)
        #expect(household.tornTail?.records == 2 && household.tornTail?.journal == "journal-0000000000000001")
        #expect(try DataDirectoryCheck.run(path) == reports)
        let after = try Self.files(path).merging(try Self.files("\(path)/household")) { a, _ in a }
        #expect(after == before)
    }

    @Test(
        "check: a member in the accounts without an archive is damage; an empty folder an interrupted add left is not")
    func membersAndFolders() throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(String(path.dropLast(5))) }
        let store = try FileArchiveStore(path: path, owner: "test")
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
        #expect(rmdir("\(path)/users/2") != 0)  // not empty: it has its journal
        removeTree("\(path)/users/2")
        #expect(mkdir("\(path)/users/9", 0o700) == 0)
        let reports = try DataDirectoryCheck.run(path)
        #expect(reports.first { $0.archive == "users/2" }?.problem?.contains("bob's archive is missing") == true)
        #expect(reports.first { $0.archive == "users/9" }?.problem == nil)
        #expect(reports.filter { $0.problem != nil }.count == 1)
    }
}
