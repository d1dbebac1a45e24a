import Foundation
import Testing
import WaterProtocol

/// Issue 34: a member's reminders go out in their export and come back on import; where pushes
/// go (the URL and its token) never leaves the server in an export.
@Suite("Reminders in exports, end to end")
struct ReminderTransferTests {
    @Test(
        "export carries the reminders without the push URL or token, in JSON and CSV; import brings them back and keeps the push endpoint; twice changes nothing"
    )
    func roundTrip() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = try server.loggedInAdmin()
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        try "tk_very_secret\n".write(toFile: "\(folder)/token", atomically: true, encoding: .utf8)
        let set = try mum.run([
            "remind", "--every", "90", "--hours", "07:30-21:00", "--chores", "on", "--mqtt", "on", "--push",
            "https://ntfy.example/our-secret-topic", "--push-token-file", "\(folder)/token",
        ])
        #expect(set.status == 0, "\(set)")
        for format in ["json", "csv"] {
            #expect(try mum.run(["export", "--format", format, "--output", "\(folder)/mum.\(format)"]).status == 0)
            let text = try String(contentsOfFile: "\(folder)/mum.\(format)", encoding: .utf8)
            #expect(!text.contains("our-secret-topic") && !text.contains("tk_very_secret"), "\(format): \(text)")
        }
        let json = try JSONDecoder().decode(
            [WaterV1.MemberHistory].self, from: Data(contentsOf: URL(fileURLWithPath: "\(folder)/mum.json")))
        #expect(
            json.first?.reminders
                == WaterV1.ReminderSettings(everyMinutes: 90, from: "07:30", to: "21:00", mqtt: true, chores: true))
        let csv = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8)
        #expect(csv.contains("\nreminders,mum,,,,90,,07:30-21:00 chores mqtt,,,,,\n"), "\(csv)")

        // Off, then each file brings them back, the push endpoint and its token untouched.
        for format in ["json", "csv"] {
            #expect(try mum.run(["remind", "off"]).status == 0)
            #expect(try mum.run(["remind", "--mqtt", "off"]).status == 0)
            let first = try mum.json(WaterV1.ImportResponse.self, ["import", "\(folder)/mum.\(format)"])
            #expect(first.remindersSet, "\(format)")
            let shown = try mum.json(WaterV1.GetRemindersResponse.self, ["remind"]).reminders
            #expect(
                shown
                    == WaterV1.ReminderSettings(
                        everyMinutes: 90, from: "07:30", to: "21:00", mqtt: true,
                        pushUrl: "https://ntfy.example/our-secret-topic", pushTokenSet: true, chores: true),
                "\(format): \(String(describing: shown))")
            let second = try mum.json(WaterV1.ImportResponse.self, ["import", "\(folder)/mum.\(format)"])
            #expect(!second.remindersSet)
        }

        // Reminders out of range are refused like SetReminders refuses them, naming the field,
        // and nothing of the file is added.
        var bad = json[0]
        bad.reminders?.everyMinutes = 5
        try JSONEncoder().encode([bad]).write(to: URL(fileURLWithPath: "\(folder)/bad.json"))
        let refused = try mum.run(["--json", "import", "\(folder)/bad.json"])
        #expect(refused.status == 65 && refused.error.contains("\"field\":\"reminders.every_minutes\""), "\(refused)")
        #expect(server.stop() == 0)
    }
}
