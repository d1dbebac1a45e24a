import Glibc
import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

@testable import WaterStore

/// A disk holding three members and the household, with snapshots and the log both in use:
/// the store is left as a power cut would leave it (a clean close would fold the log into
/// snapshots), so open it again on `disk.crash()`.
private func populatedDisk() throws -> (SimulatedDisk, Expected) {
    let disk = SimulatedDisk()
    let store = try openStore(disk.fileSystem(), threshold: 1024, segment: 4096)
    var expected = Expected()
    for step in Step.script(count: 150, seed: 3) { run(step, on: store, expecting: &expected) }
    store.flush()
    // A few more writes after the last compaction, so the log holds records of every archive.
    for n in 0..<6 { run(.log(member: 2, n: 10_000 + n, amount: 200), on: store, expecting: &expected) }
    run(.todo(n: 10_006), on: store, expecting: &expected)
    for member: UInt64 in [1, 3] {
        run(.log(member: member, n: 10_007 + Int(member), amount: 300), on: store, expecting: &expected)
    }
    store.flush()
    return (disk, expected)
}

/// What each archive holds after a restart, or nil when it is protected.
private func archives(_ store: FileArchiveStore) -> [UInt64: Expected?] {
    var found: [UInt64: Expected?] = [:]
    for member: UInt64 in [1, 2, 3] {
        var one = Expected()
        one.members[member] = try? store.member(member)!.read { $0 }
        found[ArchiveKey.member(member)] = one.members[member] == nil ? .some(nil) : one
    }
    var household = Expected()
    household.household = (try? store.household.read { $0 }) ?? TodoList()
    found[ArchiveKey.household] = store.household.protection == nil ? household : .some(nil)
    return found
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

        let store = try openStore(disk.crash(), threshold: 1024, segment: 4096)
        #expect(store.protectedArchives.map(\.path) == ["/data/users/2"])
        let archive = try #require(store.member(2))
        #expect { try archive.read { $0 } } throws: { ($0 as? ArchiveError)?.code == .protected }
        var scratch = expected
        #expect(!run(.log(member: 2, n: 20_000, amount: 250), on: store, expecting: &scratch))
        // Everyone else reads and writes as before, through the log it shares.
        #expect(try store.member(1)!.read { $0 } == expected.members[1])
        for n in 0..<40 { #expect(run(.log(member: 1, n: 20_001 + n, amount: 250), on: store, expecting: &scratch)) }
        #expect(run(.todo(n: 20_100), on: store, expecting: &scratch))
        store.flush()
        #expect(disk.contents(under: "/data/users/2") == before)
        let message = try #require(store.protectedArchives.first?.reason.message)
        #expect(message.contains("/data/users/2") && message.contains("checksum"))
        store.close()
        // The protected archive's records stay in the log, however far the others write.
        let reopened = try openStore(disk.crash(), threshold: 1024, segment: 4096)
        #expect(reopened.protectedArchives.map(\.path) == ["/data/users/2"])
        let index = try LogIndex.read("/data/log", fileSystem: disk.fileSystem())
        #expect(index.chunks[ArchiveKey.member(2)]?.isEmpty == false, "member 2's records are still in the log")
    }

    @Test("a flipped bit in a snapshot is never accepted, and protects only its archive")
    func everyBitOfASnapshot() throws {
        let (disk, expected) = try populatedDisk()
        let path = "/data/users/2/snapshot"
        let original = try #require(disk.contents(under: path)[path])
        for bit in stride(from: 0, to: original.count * 8, by: 5) {
            var damaged = original
            damaged[bit / 8] ^= 1 << (bit % 8)
            disk.overwrite(path, with: damaged)
            let store = try openStore(disk.crash(), threshold: 1024, segment: 4096)
            #expect(store.protectedArchives.map(\.path) == ["/data/users/2"], "bit \(bit)")
            #expect(try store.member(1)!.read { $0 } == expected.members[1])
            // Left as a power cut leaves it: a close would snapshot the others, changing the disk.
            store.flush()
        }
        disk.overwrite(path, with: original)
    }

    @Test(
        "a flipped bit in the log, but in its last frame, never changes what an archive holds, and protects only the archives of the frame it is in"
    )
    func everyBitOfTheLog() throws {
        let (disk, expected) = try populatedDisk()
        let segments = disk.contents(under: "/data/log/").filter {
            LogSegment.generation(ofName: String($0.key.dropFirst(10))) != nil
        }
        #expect(segments.count > 1, "the log crossed segments")
        // The newest segment written (one made ahead of time may follow it, all zeros).
        let newest = try #require(
            segments.filter { !$0.value.withUnsafeBytes { LogSegment.scan($0) }.frames.isEmpty }.keys.max())
        // Where each archive's snapshot stands: chunks before it are folded in, and damage there
        // costs nothing.
        var folded: [UInt64: LogPosition] = [:]
        for (path, bytes) in disk.contents(under: "/data/") where path.hasSuffix("/snapshot") {
            let folder = String(path.dropFirst("/data/".count).dropLast("/snapshot".count))
            folded[ArchiveKey.of(folder: folder)!] = SnapshotFile.stamp(of: bytes)!.position
        }
        var flips = 0
        for (path, original) in segments.sorted(by: { $0.key < $1.key }) {
            let scan = original.withUnsafeBytes { LogSegment.scan($0) }
            // The last frame of the log may be torn by a crash: damage there is cut, not reported.
            let frames = path == newest ? scan.frames.dropLast() : scan.frames[...]
            for frame in frames {
                let owners = Set(frame.entries.map(\.entry.key))
                for bit in stride(from: frame.offset * 8, to: frame.end * 8, by: 131) {
                    var damaged = original
                    damaged[bit / 8] ^= 1 << (bit % 8)
                    disk.overwrite(path, with: damaged)
                    let store = try openStore(disk.crash(), threshold: 1024, segment: 4096)
                    for (key, found) in archives(store) {
                        guard let found else {
                            #expect(
                                owners.contains(key),
                                "bit \(bit) of \(path) protected \(ArchiveKey.folder(key)), not in its frame")
                            continue
                        }
                        let member = key & (1 << 56 - 1)
                        if key == ArchiveKey.household {
                            #expect(found.household == expected.household, "bit \(bit) of \(path)")
                        } else {
                            #expect(found.members[member] == expected.members[member], "bit \(bit) of \(path)")
                        }
                    }
                    // Damage inside a chunk not folded into a snapshot yet is always noticed: its
                    // archive is protected.
                    let end = LogPosition(
                        generation: LogSegment.generation(ofName: String(path.dropFirst(10)))!, offset: frame.end)
                    if let (entry, _, _) = frame.entries.first(where: { $0.chunk.contains(bit / 8) }),
                        end > folded[entry.key]!
                    {
                        #expect(
                            store.protectedArchives.map(\.path).contains("/data/\(ArchiveKey.folder(entry.key))"),
                            "bit \(bit) of \(path)")
                    }
                    // Left as a power cut leaves it: a close would snapshot the others, changing the disk.
                    store.flush()
                    flips += 1
                }
            }
            disk.overwrite(path, with: original)
        }
        #expect(flips > 200)
    }

    @Test("an archive in a format version from the future is refused, not guessed at")
    func futureVersion() throws {
        let (disk, _) = try populatedDisk()
        let snapshot = "/data/users/3/snapshot"
        let stamp = SnapshotFile.stamp(of: try #require(disk.contents(under: snapshot)[snapshot]))!
        let future = SnapshotFile.encode(body: [], version: 9, kind: .member, stamp: stamp)
        disk.overwrite(snapshot, with: future)
        let store = try openStore(disk.crash())
        let reason = try #require(store.protectedArchives.first { $0.path == "/data/users/3" }?.reason)
        #expect(reason.message.contains("format version 9"))
        #expect(disk.contents(under: snapshot)[snapshot] == future)
    }

    @Test("a record in the log that breaks the seed's rules (an amount out of range) protects the archive")
    func invalidValues() throws {
        let (disk, _) = try populatedDisk()
        let store = try openStore(disk.crash())
        let archive = try #require(store.member(1))
        // Log an entry of 5000 ml, which validation would never let through.
        try archive.commitAndWait { _ in
            [.water(.logged(WaterEntry(id: id(77_777), amountMillilitres: 5000, unixMilliseconds: workloadStart)))]
        }
        store.close()
        let reopened = try openStore(disk.crash())
        #expect(reopened.protectedArchives.map(\.path) == ["/data/users/1"])
    }
}
