import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterStore
import WaterSystem

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

    @Test("a write the disk refused (ENOSPC, EIO) is INTERNAL, as documented; the errno stays in the cause, never sent")
    func failedWrite() throws {
        for (errno, said) in [(ENOSPC, "its disk is full"), (EIO, "its disk refused the write")] {
            let beneath = FileSystemError(operation: "fsync", path: "data/users/2/log", errno: errno)
            let error = WaterError.storage(ArchiveError(beneath))
            #expect(error.code == .internal)
            #expect(try Self.documented(.internal).contains("could not store the write"))
            #expect(error.message.contains(said) && error.message.contains("nothing was changed"))
            #expect(!error.message.contains("errno") && !error.message.contains("data/users"))
            // The log's cause says what failed beneath; the peer's status carries none of it.
            let cause = try #require(error.cause as? ArchiveError)
            #expect(cause.cause == beneath && "\(cause)".contains("fsync data/users/2/log"))
            #expect(error.status == WaterV1.Status(code: .internal, message: error.message))
        }
    }

    @Test("an unexpected error is INTERNAL to the client and kept whole as the cause for the log")
    func unexpectedError() throws {
        struct Surprise: Error, CustomStringConvertible { var description: String { "the surprise beneath" } }
        let error = WaterError(refusal: Surprise())
        #expect(error.code == .internal && !error.message.contains("surprise"))
        #expect("\(try #require(error.cause))" == "the surprise beneath")
        // A refusal that is already the client's error keeps no cause: nothing failed beneath.
        #expect(WaterError(refusal: WaterError(.notFound, "no such entry")).cause == nil)
    }

    @Test(
        "a protected archive is FAILED_PRECONDITION, as documented; protected accounts never look like a wrong password"
    )
    func protectedArchive() throws {
        let error = WaterError.storage(ArchiveError(.protected, "data/users/2 could not be read"))
        #expect(error.code == .failedPrecondition)
        #expect(try Self.documented(.failedPrecondition).contains("protected mode"))
        #expect(WaterError.accountsUnreadable.code == .failedPrecondition)
        #expect(try Self.documented(.failedPrecondition).contains("the server's accounts"))
        #expect(!WaterError.accountsUnreadable.message.contains("password"))
    }
}
