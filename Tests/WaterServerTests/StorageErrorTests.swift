import Foundation
import Testing
import WaterLog
import WaterProtocol
import WaterStore
import WaterSync

@testable import WaterServer

/// What a client is told when the store fails, against what `proto/README.md` promises.
@Suite("Storage errors as the client sees them")
struct StorageErrorTests {
    /// The "when" column of a status code's row in proto/README.md's table.
    static func documented(_ code: WaterError.Code) throws -> String {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto/README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| \(code.rawValue) | \(code) |") })
        return String(row.split(separator: "|")[2])
    }

    @Test("a write the disk refused (ENOSPC, EIO) is INTERNAL, as documented; the errno goes to the log only")
    func failedWrite() throws {
        let lines = Locked<[String]>([])
        let logger = Logger(minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        let error = WaterError.storage(
            ArchiveError(.ioFailure, "write fd 7: No space left on device (errno 28)"), logger: logger)
        #expect(error.code == .internal)
        #expect(try Self.documented(.internal).contains("could not store the write"))
        #expect(error.message.contains("nothing was changed") && !error.message.contains("errno"))
        #expect(lines.withLock { $0 }.contains { $0.contains("No space left on device") })
    }

    @Test(
        "a protected archive is FAILED_PRECONDITION, as documented; protected accounts never look like a wrong password"
    )
    func protectedArchive() throws {
        let error = WaterError.storage(ArchiveError(.protected, "data/users/2 could not be read"), logger: .silent)
        #expect(error.code == .failedPrecondition)
        #expect(try Self.documented(.failedPrecondition).contains("protected mode"))
        #expect(WaterError.accountsUnreadable.code == .failedPrecondition)
        #expect(try Self.documented(.failedPrecondition).contains("the server's accounts"))
        #expect(!WaterError.accountsUnreadable.message.contains("password"))
    }
}
