import Foundation
import Testing
import WaterProtocol
import WaterTestSupport

/// The offline points of issue 22, through the real binaries, with the server stopped.
@Suite("Offline polish, end to end", .serialized)
struct OfflinePolishTests {
    @Test("away, a write the server would refuse anyway is refused now, in its words and exit code (65); none is kept")
    func checkedBeforeQueueing() throws {
        let server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        #expect(try mum.run(["log", "300"]).status == 0)
        let refusals = [
            ["log", "250", "--at", "2030-01-01T08:00"], ["todo", "add", "tea"],
            ["habit", "check", "Read", "--day", "2030-01-01"],
        ]
        let online = try refusals.map { try mum.run($0) }
        #expect(online.allSatisfy { $0.status == 65 }, "\(online)")
        let entry = try #require(
            try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.first?.entryID)
        #expect(server.stop() == 0)

        for (arguments, answer) in zip(refusals, online) {
            let away = try mum.run(arguments)
            #expect(away.status == 65, "\(arguments): \(away)")
            #expect(away.error == answer.error, "\(arguments): \(away.error)")
        }
        let edit = try mum.run(["edit", entry, "--at", "2030-01-01T08:00"])
        #expect(edit.status == 65 && edit.error.contains("that time is in the future"), "\(edit)")
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
        // What only the server can judge still waits for it.
        #expect(try mum.run(["log", "250"]).status == 0)
        #expect(try mum.run(["todo", "add", "buy filters"]).status == 0)
        #expect(OfflineTests.queuedFiles(mum).count == 2)
    }
}
