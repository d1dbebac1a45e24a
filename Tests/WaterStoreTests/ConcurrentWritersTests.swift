import Dispatch
import Glibc
import Testing
import WaterCore
import WaterStore
import WaterSync
import WaterTestSupport

/// Many threads writing the same archive at once: records must reach the journal in the order
/// they were numbered, so that a restart finds every acknowledged write (issue 13).
@Suite("Concurrent writers on one archive")
struct ConcurrentWritersTests {
    /// What the writers did: ids they were told are durable, and every id they tried.
    final class Outcome: Sendable {
        let acknowledged = Locked(Set<RecordID>())
        let attempted = Locked(Set<RecordID>())
    }

    /// `writers` threads, half logging drinks for member 1 and half adding todos, each
    /// `perThread` writes from `first` on; returns once all are answered.
    static func write(
        _ store: FileArchiveStore, writers: Int, perThread: Int, first: Int, into outcome: Outcome,
        whileRunning body: () -> Void = {}
    ) {
        let group = DispatchGroup()
        for thread in 0..<writers {
            DispatchQueue.global().async(group: group) {
                for k in 0..<perThread {
                    let n = first + thread * perThread + k
                    outcome.attempted.withLock { _ = $0.insert(id(n)) }
                    do {
                        if thread % 2 == 0 {
                            let archive = try store.createMember(1)
                            let entry = WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart)
                            try archive.commitAndWait { _ in [.water(.logged(entry))] }
                        } else {
                            let item = TodoItem(
                                id: id(n), text: "task \(n)", isDone: false, addedBy: 1,
                                addedAtUnixMilliseconds: workloadStart)
                            try store.household.commitAndWait { _ in [.added(item)] }
                        }
                        outcome.acknowledged.withLock { _ = $0.insert(id(n)) }
                    } catch {
                        // A write the crash cut off: not acknowledged, may or may not survive.
                    }
                }
            }
        }
        body()
        group.wait()
    }

    /// Every id the store holds, in member 1's archive and the household's list.
    static func stored(_ store: FileArchiveStore) throws -> Set<RecordID> {
        let entries = try store.member(1)?.read { $0.water.entries.map(\.id) } ?? []
        return Set(entries).union(try store.household.read { $0.items.map(\.id) })
    }

    @Test("16 writers on one member and the household: a crash after every round recovers every acknowledged write")
    func crashAfterEveryRound() throws {
        let disk = SimulatedDisk()
        var store = try openStore(disk.fileSystem(), threshold: 2048)
        let outcome = Outcome()
        for round in 0..<30 {
            Self.write(store, writers: 16, perThread: 4, first: round * 1000, into: outcome)
            store = try openStore(disk.crash(), threshold: 2048)
            #expect(store.protectedArchives.isEmpty, "round \(round): \(store.protectedArchives.map(\.reason))")
            let acknowledged = outcome.acknowledged.withLock { $0 }
            #expect(acknowledged.count == (round + 1) * 64, "every write succeeds without a crash in the middle")
            #expect(try Self.stored(store) == acknowledged, "round \(round)")
        }
        #expect(store.logPosition.generation > 2, "the rounds were long enough to fill segments of the log")
    }

    @Test("a crash in the middle of 16 concurrent writers keeps every acknowledged write and invents none")
    func crashWhileWriting() throws {
        let disk = SimulatedDisk()
        var store = try openStore(disk.fileSystem(), threshold: 2048)
        let outcome = Outcome()
        var random = SplitMix(seed: 13)
        for round in 0..<30 {
            let delay = UInt32(random.next() % 3000)
            let ids = Set((round * 1000..<round * 1000 + 16 * 6).map(id))
            var wrote = false
            Self.write(store, writers: 16, perThread: 6, first: round * 1000, into: outcome) {
                // The crash lands a random moment after the round's first acknowledged write,
                // however slow the machine: every round writes before it.
                wrote = waitUntil(every: .microseconds(100)) {
                    !outcome.acknowledged.withLock { $0.isDisjoint(with: ids) }
                }
                usleep(delay)
                // Keep a random part of whatever was written and not synced: torn writes.
                disk.crash { _, unsynced in Int(random.next() % UInt64(unsynced + 1)) }
            }
            #expect(wrote, "round \(round): a write was acknowledged before the crash")
            store = try openStore(disk.fileSystem(), threshold: 2048)
            #expect(store.protectedArchives.isEmpty, "round \(round): \(store.protectedArchives.map(\.reason))")
            let stored = try Self.stored(store)
            let (acknowledged, attempted) = (outcome.acknowledged.withLock { $0 }, outcome.attempted.withLock { $0 })
            #expect(acknowledged.isSubset(of: stored), "round \(round): acknowledged writes lost")
            #expect(stored.isSubset(of: attempted), "round \(round)")
            // What survived unacknowledged now counts as written; the next round builds on it.
            outcome.acknowledged.withLock { $0 = stored }
        }
    }

    @Test(
        "issue18: a write of 5000 records (an Import's), encoded outside the committer's lock, lands whole among 16 writers; a crash keeps it all"
    )
    func largeWriteAmongSmallOnes() throws {
        let disk = SimulatedDisk()
        var store = try openStore(disk.fileSystem(), threshold: 2048)
        let outcome = Outcome()
        let large = (0..<5000).map { id(1_000_000 + $0) }
        Self.write(store, writers: 16, perThread: 4, first: 0, into: outcome) {
            do {
                try store.createMember(1).commitAndWait { _ in
                    large.map {
                        .water(.logged(WaterEntry(id: $0, amountMillilitres: 250, unixMilliseconds: workloadStart)))
                    }
                }
            } catch {
                Issue.record("the large write failed: \(error)")
            }
        }
        store = try openStore(disk.crash(), threshold: 2048)
        // Records that skip or repeat a sequence number would protect the archive.
        #expect(store.protectedArchives.isEmpty, "\(store.protectedArchives.map(\.reason))")
        let stored = try Self.stored(store)
        #expect(stored.isSuperset(of: large))
        #expect(stored == outcome.acknowledged.withLock { $0 }.union(large))
    }
}
