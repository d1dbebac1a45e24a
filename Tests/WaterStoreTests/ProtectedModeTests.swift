import Glibc
import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

@testable import WaterStore

/// A disk holding three members and the household, with snapshots and journals both in use.
private func populatedDisk() throws -> (SimulatedDisk, Expected) {
    let disk = SimulatedDisk()
    let store = try openStore(disk.fileSystem(), threshold: 1024)
    var expected = Expected()
    for step in Step.script(count: 150, seed: 3) { run(step, on: store, expecting: &expected) }
    store.flush()
    // A few more writes after the last compaction, so every journal has several frames.
    for n in 0..<6 { run(.log(member: 2, n: 10_000 + n, amount: 200), on: store, expecting: &expected) }
    store.close()
    return (disk, expected)
}

@Suite("Protected mode")
struct ProtectedModeTests {
    @Test("a damaged archive is kept byte for byte and refuses writes; everyone else carries on")
    func damagedArchive() throws {
        let (disk, expected) = try populatedDisk()
        let snapshot = "/data/users/2/snapshot"
        var bytes = try #require(disk.contents(under: snapshot)[snapshot])
        bytes[bytes.count / 2] ^= 0x04
        disk.overwrite(snapshot, with: bytes)
        let before = disk.contents(under: "/data/users/2")

        let store = try openStore(disk.fileSystem(), threshold: 1024)
        #expect(store.protectedArchives.map(\.path) == ["/data/users/2"])
        let archive = try #require(store.member(2))
        #expect { try archive.read { $0 } } throws: { ($0 as? ArchiveError)?.code == .protected }
        var scratch = expected
        #expect(!run(.log(member: 2, n: 20_000, amount: 250), on: store, expecting: &scratch))
        // Everyone else reads and writes as before.
        #expect(try store.member(1)!.read { $0 } == expected.members[1])
        #expect(run(.log(member: 1, n: 20_001, amount: 250), on: store, expecting: &scratch))
        #expect(run(.todo(n: 20_002), on: store, expecting: &scratch))
        store.flush()
        #expect(disk.contents(under: "/data/users/2") == before)
        let message = try #require(store.protectedArchives.first?.reason.message)
        #expect(message.contains("/data/users/2") && message.contains("checksum"))
    }

    @Test("a flipped bit anywhere in a snapshot, or in a journal record but the last, is never accepted")
    func everyBitOfAnArchive() throws {
        let (disk, expected) = try populatedDisk()
        let files = disk.contents(under: "/data/users/2/")
        #expect(files.keys.contains { $0.hasSuffix("snapshot") } && files.keys.contains { $0.contains("journal-") })
        for (path, original) in files {
            // The last frame of the journal may be torn by a crash, so damage there (and in the
            // zeros after it) is cut off rather than reported; every other byte must be caught.
            let checked = path.contains("journal-") ? lastFrameStart(original) : original.count
            for bit in stride(from: 0, to: checked * 8, by: 3) {
                var damaged = original
                damaged[bit / 8] ^= 1 << (bit % 8)
                disk.overwrite(path, with: damaged)
                let store = try openStore(disk.crash())
                let member = try? store.member(2)!.read { $0 }
                #expect(member == nil || member == expected.members[2], "bit \(bit) of \(path)")
                #expect(member == nil, "bit \(bit) of \(path) went unnoticed")
                store.close()
            }
            disk.overwrite(path, with: original)
        }
    }

    private func lastFrameStart(_ journal: [UInt8]) -> Int {
        var offset = JournalFile.headerLength
        var last = offset
        while let payload = JournalFile.validFrame(in: journal, at: offset) {
            last = offset
            offset = payload.endIndex
        }
        return last
    }

    @Test("an archive in a format version from the future is refused, not guessed at")
    func futureVersion() throws {
        let (disk, _) = try populatedDisk()
        let snapshot = "/data/users/3/snapshot"
        let future = SnapshotFile.encode(body: [], version: 9, kind: .member)
        disk.overwrite(snapshot, with: future)
        let store = try openStore(disk.crash())
        let reason = try #require(store.protectedArchives.first { $0.path == "/data/users/3" }?.reason)
        #expect(reason.message.contains("format version 9"))
        #expect(disk.contents(under: snapshot)[snapshot] == future)
    }

    @Test("a journal record that breaks the seed's rules (an amount out of range) protects the archive")
    func invalidValues() throws {
        let (disk, _) = try populatedDisk()
        let store = try openStore(disk.fileSystem())
        let archive = try #require(store.member(1))
        // Journal an entry of 5000 ml, which validation would never let through.
        try archive.commitAndWait { _ in
            [.water(.logged(WaterEntry(id: id(77_777), amountMillilitres: 5000, unixMilliseconds: workloadStart)))]
        }
        store.close()
        let reopened = try openStore(disk.crash())
        #expect(reopened.protectedArchives.map(\.path) == ["/data/users/1"])
    }
}

@Suite("Format migration")
struct MigrationTests {
    @Test("a version 1 snapshot (entries as rows) and journal load, and the first write moves both to version 2")
    func version1() throws {
        let disk = SimulatedDisk()
        try openStore(disk.fileSystem()).close()
        let entries = (0..<50).map { n in
            WaterEntry(id: id(n), amountMillilitres: 250, unixMilliseconds: workloadStart + Int64(n) * 600_000)
        }
        let old = WaterArchiveV1.MemberSnapshot(
            lastSequence: 50, journalGeneration: 1, usualCupMl: 300, timeZone: "Europe/Berlin",
            goalChanges: [WaterArchiveV1.GoalChange(fromDay: 20_000, goalMl: 2500)],
            entryRows: entries.map {
                WaterArchiveV1.StoredEntry(id: $0.id.bytes, amountMl: 250, atUnixMs: $0.unixMilliseconds)
            })
        let fileSystem = disk.fileSystem()
        try fileSystem.createDirectory("/data/users/9", mode: 0o700)
        try fileSystem.replaceFile(
            "/data/users/9/snapshot",
            with: SnapshotFile.encode(body: old.serializedBytes(), version: 1, kind: .member), mode: 0o600)
        // The version 1 journal that followed it: a header, no frames yet.
        let header =
            Array("WTRJ".utf8) + BigEndian.bytes(UInt16(1)) + [ArchiveKind.member.rawValue, 0]
            + BigEndian.bytes(UInt64(2))
        try fileSystem.replaceFile(
            "/data/users/9/journal-0000000000000002", with: header + BigEndian.bytes(Checksum.crc32(header)),
            mode: 0o600)
        try fileSystem.syncDirectory("/data/users")

        let store = try openStore(disk.crash())
        let archive = try #require(store.member(9))
        let loaded = try archive.read { $0 }
        #expect(loaded.water.entries == entries)
        #expect(loaded.water.usualCupMillilitres == 300 && loaded.water.dailyGoalMillilitres == 2500)
        #expect(loaded.water.timeZone.identifier == "Europe/Berlin")
        var expected = Expected()
        expected.members[9] = loaded
        #expect(run(.log(member: 9, n: 500, amount: 150), on: store, expecting: &expected))
        store.flush()
        let rewritten = try #require(disk.contents(under: "/data/users/9/snapshot")["/data/users/9/snapshot"])
        #expect(BigEndian.read(UInt16.self, from: rewritten, at: 4) == 2)
        let journals = disk.contents(under: "/data/users/9/journal-")
        #expect(journals.keys.sorted() == ["/data/users/9/journal-0000000000000003"])
        #expect(journals.values.allSatisfy { BigEndian.read(UInt16.self, from: $0, at: 4) == 2 })
        let reopened = try openStore(disk.crash())
        #expect(try reopened.member(9)!.read { $0 } == expected.members[9])
    }
}
