import Dispatch
import Foundation
import Testing
import WaterCore

@testable import WaterClient

/// Ids of one computer's records never repeat, though each `water-client` is a process of its
/// own: two terminals logging in the same millisecond once made the same id, and the server took
/// the second drink for a replay of the first.
@Suite("ClientFiles: record ids unique across processes")
struct RecordIDAllocationTests {
    let home = NSTemporaryDirectory() + "record-ids-\(UUID())"
    var files: ClientFiles { ClientFiles(environment: ["XDG_STATE_HOME": home, "XDG_CONFIG_HOME": home]) }
    static let noon: Int64 = 1_796_126_400_000

    @Test("many makers at once in one millisecond (each with its own lock descriptor, as processes): all distinct")
    func sameMillisecond() {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let files = self.files
        _ = files.installationID()  // made once, before the race
        let made = LockedIDs()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in made.add(files.newRecordID(at: Self.noon)) }
        let ids = made.ids
        #expect(ids.count == 64 && Set(ids).count == 64)
        #expect(ids.allSatisfy { $0.embeddedUnixMilliseconds == Self.noon })
        #expect(Set(ids.map { $0.description.prefix(19) }).count == 64, "the counters differ")
    }

    @Test("a millisecond's counters run out into the next; a last id far ahead (a clock once wrong) is ignored")
    func edges() throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let first = files.newRecordID(at: Self.noon)
        try "\(Self.noon) 4095\n".write(
            toFile: "\(files.directory)/last-id", atomically: true, encoding: .utf8)
        let next = files.newRecordID(at: Self.noon)
        #expect(next.embeddedUnixMilliseconds == Self.noon + 1 && next != first)
        try "\(Self.noon + 3_600_000) 7\n".write(
            toFile: "\(files.directory)/last-id", atomically: true, encoding: .utf8)
        #expect(files.newRecordID(at: Self.noon + 5).embeddedUnixMilliseconds == Self.noon + 5)
        // A later millisecond starts its counter at 0, and ids sort by when they were made.
        let later = files.newRecordID(at: Self.noon + 10)
        #expect(later > next)
    }

    final class LockedIDs: @unchecked Sendable {
        private let lock = NSLock()
        private var made: [RecordID] = []
        func add(_ id: RecordID) { lock.withLock { made.append(id) } }
        var ids: [RecordID] { lock.withLock { made } }
    }
}
