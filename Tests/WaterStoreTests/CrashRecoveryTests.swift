import Glibc
import Testing
import WaterCore
import WaterStore
import WaterSystem
import WaterTestSupport

@Suite("Crash recovery on a simulated disk")
struct CrashRecoveryTests {
    static let steps = Step.script(count: 240)

    @Test("a crash after any prefix of 240 writes recovers exactly what was acknowledged")
    func everyPrefix() throws {
        // One run, crashing after every step: each "boot" recovers, checks, and carries on.
        let disk = SimulatedDisk()
        var store = try openStore(disk.fileSystem(), threshold: 2048)
        var expected = Expected()
        var compactions = 0
        for (index, step) in Self.steps.enumerated() {
            #expect(run(step, on: store, expecting: &expected))
            // Mostly the crash catches a compaction half done; every third boot lets it finish.
            if index % 3 == 2 {
                store.flush()
                compactions += store.memberIDs.map { store.member($0)!.fileStatus.compactions }.reduce(0, +)
            }
            store = try openStore(disk.crash(), threshold: 2048)
            #expect(try Expected(store) == expected, "after \(step)")
            #expect(store.protectedArchives.isEmpty)
        }
        #expect(compactions > 0, "the workload is long enough to compact")
        #expect(expected.members.values.map(\.water.entries.count).reduce(0, +) > 100)
    }

    @Test(
        "a crash in the middle of a write (a torn tail of the log) loses only that write",
        arguments: [1, 5, 11, 30, 64])
    func tornTail(keptBytes: Int) throws {
        let disk = SimulatedDisk()
        let faulty = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faulty, threshold: 1 << 20)
        var expected = Expected()
        for step in Self.steps.prefix(40) { #expect(run(step, on: store, expecting: &expected)) }
        // The next sync of the log "hangs" (fails): the write is on its way but not durable.
        faulty.failStarting(at: 1, of: .sync, errno: EIO)
        var lost = expected
        #expect(!run(.log(member: 1, n: 9_999, amount: 250), on: store, expecting: &lost))
        // Power goes: part of the unsynced frame made it to the platter.
        let recovered = try openStore(
            disk.crash { path, unsynced in path.contains("/log/") ? min(keptBytes, unsynced - 1) : 0 })
        #expect(try Expected(recovered) == expected)
        #expect(recovered.protectedArchives.isEmpty)
    }
}

@Suite("Group commit and snapshots")
struct GroupSnapshotTests {
    @Test(
        "a snapshot that starts with a group's frame holds every record of that frame, whatever the order of its submissions"
    )
    func snapshotInsideAGroup() throws {
        let disk = SimulatedDisk()
        let store = try openStore(disk.fileSystem(), threshold: 64)
        let archive = try store.createMember(1)
        var expected = MemberArchive(timeZone: .utc)
        // Ten submissions of one archive in one group: the first alone passes the threshold.
        #expect(store.committer.acquireLeadership())
        for n in 0..<10 {
            let mutation = MemberMutation.water(
                .logged(WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart)))
            expected.apply(mutation)
            try archive.commit({ _ in Decision([mutation]) }, result: { _, _ in () }, completion: { _ in })
        }
        store.committer.lead()
        store.flush()
        #expect(archive.fileStatus.compactions > 0, "a snapshot was written")
        store.close()
        let reopened = try openStore(disk.crash(), threshold: 64)
        #expect(reopened.protectedArchives.isEmpty)
        #expect(try reopened.member(1)!.read { $0 } == expected)
    }
}

@Suite("Fault injection")
struct FaultInjectionTests {
    static let steps = Step.script(count: 60, seed: 7)

    /// Every (operation, errno, N): the Nth call of the operation fails from the 20th step on,
    /// and every call of it after, until the fault clears ten steps later.
    static let faults: [(FaultInjectingFileSystem.Operation, Int32, Int)] =
        FaultInjectingFileSystem.Operation.allCases.flatMap { operation in
            [EIO, ENOSPC].flatMap { errno in (1...9).map { n in (operation, errno, n) } }
        }

    @Test("no failed write is reported durable, nothing durable is damaged, and writes resume", arguments: faults)
    func fault(operation: FaultInjectingFileSystem.Operation, errno: Int32, n: Int) throws {
        let disk = SimulatedDisk()
        let faulty = FaultInjectingFileSystem(base: disk.fileSystem())
        let store = try openStore(faulty, threshold: 1024)
        var expected = Expected()
        var failures = 0
        for (index, step) in Self.steps.enumerated() {
            if index == 20 { faulty.failStarting(at: n, of: operation, errno: errno) }
            if index == 30 { faulty.clearFaults() }
            let acknowledged = run(step, on: store, expecting: &expected)
            if !acknowledged { failures += 1 }
            if index >= 35 { #expect(acknowledged, "writes succeed again once the fault clears: \(step)") }
        }
        store.flush()
        #expect(try Expected(store) == expected)
        // What is on disk is what was acknowledged: nothing more, nothing less.
        let recovered = try openStore(disk.crash())
        #expect(try Expected(recovered) == expected)
        #expect(recovered.protectedArchives.isEmpty)
        // A rename or a read fails only a snapshot (written or read back), never a write.
        if operation == .write || operation == .sync { #expect(failures > 0, "the fault was reached") }
    }

    @Test("the fault points number at least 50")
    func enoughPoints() {
        #expect(Self.faults.count >= 50)
    }
}

@Suite("Clean shutdown")
struct CleanShutdownTests {
    @Test("a clean close folds every archive's records into its snapshot: the next start replays none")
    func closeCheckpoints() throws {
        let disk = SimulatedDisk()
        // A threshold no workload here reaches: every record is still in the log at close.
        let store = try openStore(disk.fileSystem(), threshold: 1 << 20, segment: 4096)
        var expected = Expected()
        for step in Step.script(count: 150, seed: 5) { run(step, on: store, expecting: &expected) }
        store.flush()
        for member: UInt64 in [1, 2, 3] {
            #expect(try #require(store.member(member)).fileStatus.logBytes > 0, "member \(member) is in the log")
        }
        store.close()

        let reopened = try openStore(disk.fileSystem(), threshold: 1 << 20, segment: 4096)
        defer { reopened.close() }
        #expect(reopened.protectedArchives.isEmpty)
        for member: UInt64 in [1, 2, 3] {
            let archive = try #require(reopened.member(member))
            #expect(try archive.read { $0 } == expected.members[member])
            #expect(archive.fileStatus.logBytes == 0, "member \(member) replayed records at start")
        }
        #expect(try reopened.household.read { $0 } == expected.household)
        #expect(reopened.household.fileStatus.logBytes == 0)
    }
}
