import Glibc
import Testing
import WaterCore
import WaterProtocol
import WaterSystem
import WaterTestSupport

@testable import WaterStore

/// A data directory of format 1 (a journal per archive) moved to the shared log when first
/// opened.
@Suite("Migration to the shared log")
struct MigrationTests {
    static func legacyDisk(_ steps: Int = 120) throws -> (SimulatedDisk, LegacyDirectory) {
        let disk = SimulatedDisk()
        let legacy = LegacyDirectory(steps: Step.script(count: steps, seed: 5))
        try legacy.write(at: "/data", fileSystem: disk.fileSystem())
        return (disk, legacy)
    }

    @Test("every archive reads as it did; its journals are gone, its snapshot stands at the log's start")
    func migrates() throws {
        let (disk, legacy) = try Self.legacyDisk()
        let store = try openStore(disk.crash())
        #expect(store.protectedArchives.isEmpty, "\(store.protectedArchives.map(\.reason))")
        #expect(try Expected(store) == legacy.expected)
        store.close()
        let files = disk.contents(under: "/data/")
        #expect(!files.keys.contains { $0.contains("journal-") })
        #expect(files["/data/format"] == Array("water-data 2\n".utf8))
        for (path, bytes) in files where path.hasSuffix("/snapshot") {
            #expect(SnapshotFile.stamp(of: bytes)?.position == .start, "\(path)")
        }
        // And it goes on: writes after the move, read after a crash.
        let again = try openStore(disk.crash())
        var expected = legacy.expected
        for n in 0..<30 { #expect(run(.log(member: 1, n: 5000 + n, amount: 250), on: again, expecting: &expected)) }
        again.close()
        #expect(try Expected(openStore(disk.crash())) == expected)
    }

    @Test("a crash at any point of the move leaves a directory that the next start moves whole")
    func crashWhileMigrating() throws {
        let legacy = LegacyDirectory(steps: Step.script(count: 60, seed: 5))
        // Stopped at each of its steps: a disk that fails the nth rename (each snapshot moved in,
        // the format file) and every one after it, then a power cut.
        for cut in 1..<12 {
            let (fresh, _) = try Self.legacyDisk(60)
            let faults = FaultInjectingFileSystem(base: fresh.fileSystem())
            faults.failStarting(at: cut, of: .rename, errno: EIO)
            _ = try? openStore(faults).close()
            let store = try openStore(fresh.crash())
            #expect(store.protectedArchives.isEmpty, "cut at rename \(cut)")
            #expect(try Expected(store) == legacy.expected, "cut at rename \(cut)")
            store.close()
        }
    }

    @Test("an archive that does not read is left as it was, protected, and the others move")
    func damagedArchiveStays() throws {
        let (disk, legacy) = try Self.legacyDisk()
        // The member with the most records: a frame of their journal that is not its last.
        let damaged = try #require(legacy.members.max { $0.value.count < $1.value.count }?.key)
        let other = try #require(legacy.members.keys.first { $0 != damaged })
        let journal = "/data/users/\(damaged)/\(ArchiveFiles.journal(generation: 2))"
        var bytes = try #require(disk.contents(under: journal)[journal])
        bytes[JournalFile.headerLength + JournalFile.frameHeaderLength + 6] ^= 0x08
        disk.overwrite(journal, with: bytes)
        let before = disk.contents(under: "/data/users/\(damaged)/")
        let store = try openStore(disk.crash())
        #expect(store.protectedArchives.map(\.path) == ["/data/users/\(damaged)"])
        #expect(store.protectedArchives.first?.reason.message.contains("per-archive journals") == true)
        #expect(try store.member(other)!.read { $0 } == legacy.expected.members[other])
        store.close()
        #expect(disk.contents(under: "/data/users/\(damaged)/") == before, "kept byte for byte")
    }
}
