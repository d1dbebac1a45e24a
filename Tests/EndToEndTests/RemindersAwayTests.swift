import Foundation
import Testing
import WaterProtocol

/// Issue 34, item 1: reminder changes "in the outbox when away". A queued change names only the
/// fields given (SetRemindersRequest.fields), so it leaves alone what the server keeps.
@Suite("Reminders away from the server, end to end")
struct RemindersAwayTests {
    @Test(
        "with the server stopped, remind --every and --mqtt wait in the outbox; once sent they change only those, the push URL and token kept"
    )
    func queuedChangesKeepTheRest() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        try "tk_kept\n".write(toFile: "\(folder)/token", atomically: true, encoding: .utf8)
        let set = try mum.run([
            "remind", "--every", "60", "--hours", "08:00-22:00", "--push", "https://ntfy.example/ours",
            "--push-token-file", "\(folder)/token",
        ])
        #expect(set.status == 0, "\(set)")
        let port = server.address.port
        #expect(server.stop() == 0)

        for change in [["--every", "120"], ["--mqtt", "on"], ["--hours", "09:00-20:00"]] {
            let saved = try mum.run(["remind"] + change)
            #expect(saved.status == 0 && saved.output.hasPrefix("saved on this computer"), "\(change): \(saved)")
        }
        #expect(OfflineTests.queuedFiles(mum).count == 3)
        // A value out of range is refused here, not queued.
        #expect(try mum.run(["remind", "--every", "5"]).status == 65)

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        #expect(try mum.run(["sync"]).status == 0)
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
        let shown = try mum.json(WaterV1.GetRemindersResponse.self, ["remind"]).reminders
        #expect(
            shown
                == WaterV1.ReminderSettings(
                    everyMinutes: 120, from: "09:00", to: "20:00", mqtt: true, pushUrl: "https://ntfy.example/ours",
                    pushTokenSet: true),
            "\(String(describing: shown))")
        #expect(server.stop() == 0)
    }
}
