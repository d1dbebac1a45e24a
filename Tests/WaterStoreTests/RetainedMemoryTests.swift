import Glibc
import Testing
import WaterCore
import WaterSystem
import WaterTestSupport

@testable import WaterStore

/// What an archive keeps in memory as it is written (issue 30 item 1): its one model and the
/// mutations no snapshot holds yet, never a second copy of its history; and the roll-back of
/// a failed write, which reads the durable state back from the snapshot since none is kept.
@Suite("What an archive keeps in memory")
struct RetainedMemoryTests {
    static let entryBytes = MemoryLayout<WaterEntry>.stride
    static let mutationBytes = MemoryLayout<(sequence: UInt64, mutation: MemberMutation)>.stride

    static func log(_ n: Int) -> MemberMutation {
        .water(.logged(WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart + Int64(n))))
    }

    /// The archive's bytes: its model's entries (counted, not at capacity: a model's arrays are
    /// the model's own, and grow as they do after a restart) and its mutations at capacity.
    static func retained(_ archive: Archive<MemberArchive>) -> (bytes: Int, mutations: Int) {
        let memory = archive.retainedMemory { $0.water.entries.count * entryBytes }
        return (memory.modelBytes + memory.mutationBytes, memory.mutations)
    }

    @Test("writes after a restart keep their entries and, until the next snapshot, their mutations: no second history")
    func writesKeepTheirOwnSize() throws {
        let disk = SimulatedDisk()
        let history = 10_000
        let setUp = try openStore(disk.fileSystem(), threshold: 1024, segment: 1 << 20)
        let created = try setUp.createMember(1)
        for chunk in stride(from: 0, to: history, by: 1000) {
            try created.commitAndWait { _ in (chunk..<chunk + 1000).map(Self.log) }
        }
        setUp.close()

        let store = try openStore(disk.fileSystem(), threshold: 1024, segment: 1 << 20)
        defer { store.close() }
        let archive = try #require(store.member(1))
        let before = Self.retained(archive)
        let writes = 6000
        for n in history..<history + writes {
            try archive.commitAndWait { _ in [Self.log(n)] }
        }
        store.flush()
        let after = Self.retained(archive)

        #expect(archive.fileStatus.compactions >= 2, "snapshots folded the log meanwhile")
        #expect(after.mutations < writes / 2, "a snapshot bounds the mutations kept")
        // A durable model kept beside the latest one (the design before) was a second copy of
        // the history from the first write on: up to 16 000 entries, 896 000 bytes, more than
        // this allows. What the writes keep here: 6000 entries, and the mutations since the last
        // snapshot.
        #expect(
            after.bytes - before.bytes <= writes * (Self.entryBytes + Self.mutationBytes),
            "kept \(after.bytes - before.bytes) bytes for \(writes) writes")
        #expect(try archive.read { $0.water.entries.count } == history + writes)
    }

    /// A member with a snapshot and durable writes in the log after it, and what it holds.
    /// After a roll-back: ten more writes go through, and the archive reopened after a crash
    /// holds every durable write and nothing else.
    static func writesResumeAndSurviveACrash(
        _ archive: Archive<MemberArchive>, expecting expected: inout MemberArchive, on disk: SimulatedDisk
    ) throws {
        for n in 250..<260 {
            try archive.commitAndWait { _ in [Self.log(n)] }
            expected.apply(Self.log(n))
        }
        #expect(try archive.read { $0 } == expected)
        let store = try openStore(disk.crash())
        #expect(try store.member(1)!.read { $0 } == expected)
    }

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
        let (store, archive, initial) = try Self.member(on: faulty)
        var expected = initial

        faulty.failStarting(at: 1, of: .sync, errno: EIO)
        #expect(throws: ArchiveError.self) { try archive.commitAndWait { _ in [Self.log(999)] } }
        faulty.clearFaults()
        #expect(try archive.read { $0 } == expected, "the failed write is gone, every durable one is there")

        try Self.writesResumeAndSurviveACrash(archive, expecting: &expected, on: disk)
        withExtendedLifetime(store) {}  // open, as the crash finds it
    }

    @Test(
        "when the snapshot cannot be read back at a roll-back, reads and writes fail until it can, and nothing is lost")
    func rollBackWithoutTheSnapshot() throws {
        let disk = SimulatedDisk()
        let faulty = FaultInjectingFileSystem(base: disk.fileSystem())
        let (store, archive, initial) = try Self.member(on: faulty)
        var expected = initial

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
        try Self.writesResumeAndSurviveACrash(archive, expecting: &expected, on: disk)
        withExtendedLifetime(store) {}  // open, as the crash finds it
    }
}
