// The child process of the store's SIGKILL test (Tests/WaterStoreTests/KillTests.swift).
//
//     water-store-crash-child DATA_DIR WRITERS
//
// WRITERS threads, one per member 1...WRITERS, each log drinks as fast as the store accepts
// them: entry n of member m has the id (m, n) and continues where the archive left off. After
// each durable write the child prints "m n" on standard output. The test kills it with SIGKILL
// at a random moment and checks that every printed write survived, exactly once.
import Dispatch
import Glibc
import WaterCore
import WaterStore
import WaterZoneInfo

/// Writes a whole line with one write(2): a pipe never interleaves it with another.
func emit(_ line: String, to descriptor: Int32) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let writers = UInt64(arguments[2]) else {
    emit("usage: water-store-crash-child DATA_DIR WRITERS", to: STDERR_FILENO)
    exit(64)
}

let store: FileArchiveStore
do {
    var options = StoreOptions(timeZones: ZoneInfo.system)
    options.compactionThreshold = 8 * 1024  // compact often, so kills land in compactions too
    store = try FileArchiveStore(path: arguments[1], options: options, owner: "pid \(getpid()) crash child")
} catch {
    emit("crash child: \(error)", to: STDERR_FILENO)
    exit(1)
}

let start: Int64 = 1_735_689_600_000  // 2025-01-01: every drink is in the past

DispatchQueue.concurrentPerform(iterations: Int(writers)) { index in
    let member = UInt64(index + 1)
    do {
        // createMember also reuses an archive, and one whose creation a kill cut short.
        let archive = try store.createMember(member)
        var n = UInt64(try archive.read { $0.water.entries.count })
        while true {
            let entry = WaterEntry(
                id: RecordID(high: member, low: n), amountMillilitres: 250,
                unixMilliseconds: start + Int64(n) * 1000)
            try archive.commitAndWait { _ in [.water(.logged(entry))] }
            emit("\(member) \(n)", to: STDOUT_FILENO)
            n += 1
        }
    } catch {
        emit("crash child: member \(member): \(error)", to: STDERR_FILENO)
        exit(1)
    }
}
