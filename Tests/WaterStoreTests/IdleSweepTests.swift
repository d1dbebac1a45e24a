import Testing
import WaterCore
import WaterZoneInfo

@testable import WaterStore

/// Idle members' archives leave memory and load again on their next use with exactly the state
/// they had; one in use, or used since the last sweep, stays.
@Suite("Idle archives dropped from memory")
struct IdleSweepTests {
    /// `count` drinks for member 1, a minute apart from `first` on.
    private func log(_ count: Int, from first: Int, on store: FileArchiveStore) throws {
        try store.member(1)!.commitAndWait { _ in
            (first..<first + count).map {
                .water(
                    .logged(
                        WaterEntry(
                            id: id($0), amountMillilitres: Int32(100 + $0),
                            unixMilliseconds: workloadStart + Int64($0) * 60_000)
                    ))
            }
        }
    }

    /// Sweeps until member 1's archive is dropped (it is used, then idle with records only in
    /// the log, then snapshotted): at most three sweeps.
    private func sweepUntilDropped(_ store: FileArchiveStore) -> Int {
        for sweeps in 1...3 {
            if store.dropIdleMembers() == 1 { return sweeps }
            store.flush()
        }
        return 0
    }

    /// A new data directory, open, whose member 1 has `drinks` drinks; removed after `body`.
    private func withMember(drinks: Int, _ body: (FileArchiveStore, String) throws -> Void) throws {
        let path = temporaryDirectory() + "/data"
        defer { removeTree(String(path.dropLast(5))) }
        let store = try FileArchiveStore(path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
        defer { store.close() }
        _ = try store.createMember(1)
        try log(drinks, from: 0, on: store)
        try body(store, path)
    }

    @Test("an archive dropped and loaded again holds the same state, and writes on it survive the next drop")
    func droppedAndReloaded() throws {
        try withMember(drinks: 40) { store, path in
            let before = try store.member(1)!.read { $0 }
            #expect(store.loadedStatus.loaded == 3)

            #expect(sweepUntilDropped(store) == 3)
            #expect(store.loadedStatus.loaded == 2)
            #expect(store.archivesDropped == 1)
            #expect(try store.member(1)!.read { $0 } == before)

            try log(10, from: 40, on: store)
            let after = try store.member(1)!.read { $0 }
            #expect(after.water.entries.count == 50)
            #expect(sweepUntilDropped(store) == 3)
            #expect(try store.member(1)!.read { $0 } == after)
            #expect(store.archivesDropped == 2)

            store.close()
            let reopened = try FileArchiveStore(
                path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "test")
            defer { reopened.close() }
            #expect(try reopened.member(1)!.read { $0 } == after)
        }
    }

    @Test("an archive someone holds, or one used since the last sweep, is not dropped")
    func inUseStays() throws {
        try withMember(drinks: 5) { store, _ in
            store.checkpoint()

            let held = try #require(store.member(1))
            for _ in 0..<4 { #expect(store.dropIdleMembers() == 0) }
            #expect(store.loadedStatus.loaded == 3)
            #expect(try held.read { $0.water.entries.count } == 5)

            for _ in 0..<4 {
                _ = store.member(1)
                #expect(store.dropIdleMembers() == 0)
            }
            _ = consume held
            #expect(store.dropIdleMembers() == 1)
            #expect(store.loadedStatus.loaded == 2)
        }
    }
}
