import Glibc
import Testing
import WaterCore
import WaterTestSupport

@testable import WaterStore

/// What an archive keeps in memory as it is written (issue 30 item 1): its one model and the
/// mutations no snapshot holds yet; and the roll-back of a failed write, which reads the
/// durable state back from the snapshot since no model of it is kept.
@Suite("What an archive keeps in memory")
struct RetainedMemoryTests {
    static func log(_ n: Int) -> MemberMutation {
        .water(.logged(WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart + Int64(n))))
    }

    /// A member with a snapshot and durable writes in the log after it, and what it holds.
    static func member(on fileSystem: FaultInjectingFileSystem) throws -> (
        FileArchiveStore, Archive<MemberArchive>, MemberArchive
    ) {
        let store = try openStore(fileSystem, threshold: 1 << 20)
        let archive = try store.createMember(1)
        var expected = MemberArchive(timeZone: .utc)
        for n in 0..<200 {
            try archive.commitAndWait { _ in [Self.log(n)] }
            expected.apply(Self.log(n))
        }
        archive.compact()
        store.flush()
        for n in 200..<250 {
            try archive.commitAndWait { _ in [Self.log(n)] }
            expected.apply(Self.log(n))
        }
        #expect(archive.fileStatus.compactions == 1 && archive.fileStatus.logBytes > 0)
        return (store, archive, expected)
    }

    @Test("a failed sync rolls back to the snapshot read back with the durable mutations after it")
    func rollBackReadsTheSnapshot() throws {
        let disk = SimulatedDisk()
        let faulty = FaultInjectingFileSystem(base: disk.fileSystem())
        var (store, archive, expected) = try Self.member(on: faulty)

        faulty.failStarting(at: 1, of: .sync, errno: EIO)
        #expect(throws: ArchiveError.self) { try archive.commitAndWait { _ in [Self.log(999)] } }
        faulty.clearFaults()
        #expect(try archive.read { $0 } == expected, "the failed write is gone, every durable one is there")

        for n in 250..<260 {
            try archive.commitAndWait { _ in [Self.log(n)] }
            expected.apply(Self.log(n))
        }
        #expect(try archive.read { $0 } == expected)
        store = try openStore(disk.crash())
        #expect(try store.member(1)!.read { $0 } == expected)
    }

    @Test(
        "when the snapshot cannot be read back at a roll-back, reads and writes fail until it can, and nothing is lost")
    func rollBackWithoutTheSnapshot() throws {
        let disk = SimulatedDisk()
        let faulty = FaultInjectingFileSystem(base: disk.fileSystem())
        var (store, archive, expected) = try Self.member(on: faulty)

        faulty.failStarting(at: 1, of: .sync, errno: EIO)
        faulty.failStarting(at: 1, of: .read, errno: EIO)
        #expect(throws: ArchiveError.self) { try archive.commitAndWait { _ in [Self.log(999)] } }
        // The model still holds the failed write: nothing may see it.
        let refused = #expect(throws: ArchiveError.self) { try archive.read { $0 } }
        #expect(refused?.code == .ioFailure)
        #expect(throws: ArchiveError.self) { try archive.commitAndWait { _ in [Self.log(1000)] } }
        #expect(archive.protection == nil, "a disk that fails is not damage")

        faulty.clearFaults()
        #expect(try archive.read { $0 } == expected)
        for n in 250..<260 {
            try archive.commitAndWait { _ in [Self.log(n)] }
            expected.apply(Self.log(n))
        }
        #expect(try archive.read { $0 } == expected)
        store = try openStore(disk.crash())
        #expect(try store.member(1)!.read { $0 } == expected)
    }
}
