import Foundation
import Testing
import WaterProtocol

/// Issue 32, items 23, 24 and 25: what the programs say, said the same way everywhere.
@Suite("Everyday words, end to end", .serialized)
struct EverydayWordsTests {
    @Test("issue32 item 25: the server's log quotes a username once, by the log's own rule")
    func usernameQuotedOnce() throws {
        let server = try ServerProcess.fresh()
        let stranger = server.cli("stranger")
        #expect(try stranger.run(["login", "dad", "--password-stdin"], input: "wrong-password-1\n").status == 77)
        #expect(try stranger.run(["login", "da d", "--password-stdin"], input: "wrong-password-1\n").status != 0)
        #expect(server.stop() == 0)
        let failed = server.log.split(separator: "\n").filter { $0.contains("login failed") }
        #expect(failed.contains { $0.contains(" user.name=dad ") }, "\(failed)")
        #expect(failed.contains { $0.contains(" user.name=\"da d\" ") }, "\(failed)")
        #expect(!failed.contains { $0.contains("\\\"") }, "\(failed)")
    }
}
