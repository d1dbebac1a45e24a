import Foundation
import Testing
import WaterCore
import WaterStore
import WaterTestSupport
import WaterZoneInfo

/// The directory the test bundle was built into, where the package's executables are too.
func builtProductsDirectory() -> URL {
    URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        .deletingLastPathComponent()
}

@Suite("Killed with SIGKILL")
struct KillTests {
    @Test("60 kills at random moments lose no acknowledged write and duplicate none")
    func killRepeatedly() throws {
        let child = builtProductsDirectory().appendingPathComponent("water-store-crash-child")
        #expect(FileManager.default.isExecutableFile(atPath: child.path), "build the package first: swift build")
        let path = temporaryDirectory() + "/data"
        defer { removeTree(String(path.dropLast(5))) }
        var random = SplitMix(seed: UInt64(UInt32(truncatingIfNeeded: getpid())))
        var acknowledged: [UInt64: UInt64] = [:]  // member -> highest n acknowledged

        for cycle in 0..<60 {
            let process = try ChildProcess(child.path, [path, "4"])
            // Killed at a random moment after its first acknowledged write of the cycle: every
            // cycle writes, however slow the machine (a sanitizer build writes ten times slower).
            let first = process.readOutput(until: { $0.contains("\n") }, seconds: 60)
            let wrote = first.contains("\n")
            if wrote { usleep(UInt32(random.next() % 50_000)) }
            let running = process.isRunning
            kill(process.pid, SIGKILL)
            let status = process.wait()
            #expect(running, "cycle \(cycle): the child ended before the kill (\(status)): \(process.errorText)")
            #expect(status == 128 + SIGKILL, "cycle \(cycle): the child died on its own: \(process.errorText)")
            #expect(
                wrote, "cycle \(cycle): no write acknowledged (read \(first.debugDescription)): \(process.errorText)")
            let text = first + process.readOutput()
            // Only complete lines count: a line cut by the kill was never fully reported.
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                let parts = line.split(separator: " ").compactMap { UInt64($0) }
                guard parts.count == 2 else { continue }
                acknowledged[parts[0]] = max(acknowledged[parts[0]] ?? 0, parts[1])
            }

            let store = try FileArchiveStore(
                path: path, options: StoreOptions(timeZones: ZoneInfo.system), owner: "kill test")
            #expect(store.protectedArchives.isEmpty, "cycle \(cycle)")
            for (member, highest) in acknowledged {
                let ids = try #require(store.member(member)).read { $0.water.entries.map(\.id) }
                // Every write up to the highest acknowledged is there, in order, once each.
                #expect(ids.count > highest, "cycle \(cycle): member \(member) lost acknowledged writes")
                #expect(ids == (0..<UInt64(ids.count)).map { RecordID(high: member, low: $0) }, "cycle \(cycle)")
            }
            store.close()
        }
    }
}
