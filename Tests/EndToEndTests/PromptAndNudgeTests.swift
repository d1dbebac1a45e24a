import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// Away from home (issue 12): `prompt` and `nudge`, which read what this computer knows and never
/// wait on the network, through the real binaries.
@Suite("Offline: prompt and nudge, end to end", .serialized)
struct PromptAndNudgeTests {
    @Test("prompt: no cache, a stale cache, no server; it never waits and refreshes in the background")
    func prompt() throws {
        let server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let state = mum.environment["XDG_STATE_HOME"]! + "/water/servers/\(server.address)"
        // No cache yet: a placeholder at once, and a refresh started behind it.
        let first = try mum.run(["prompt"])
        #expect(first.status == 0 && first.output == "💧 ?/??\n", "\(first.output)")
        var fresh = ""
        let refreshed = try waitUntil(every: .milliseconds(50)) {
            fresh = try mum.run(["prompt"]).output
            return fresh == "💧 0/2000\n"
        }
        #expect(refreshed, "still \(fresh)")
        #expect(try mum.run(["log", "500"]).status == 0)
        #expect(try mum.run(["prompt", "--plain"]).output == "water 500/2000 ml\n")
        #expect(try mum.run(["prompt", "--format", "{percent}% {left} left"]).output == "25% 1500 left\n")

        // A stale cache (heard from an hour ago, and the drink below logged elsewhere): shown as
        // it is, then refreshed in the background.
        let other = try server.client("mum", password: adminPassword)
        _ = try other.call(WaterV1.LogWaterRequest(entryID: other.newID().description, amountMl: 250))
        let figures = state + "/prompt"
        var text = try String(contentsOfFile: figures, encoding: .utf8)
        let hourAgo = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
        text = text.replacing(/updated_at_unix_ms \d+/, with: "updated_at_unix_ms \(hourAgo)")
        try text.write(toFile: figures, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: state + "/prompt-refresh")
        #expect(try mum.run(["prompt"]).output == "💧 500/2000\n")
        var stale = ""
        let refreshedAgain = try waitUntil(every: .milliseconds(50)) {
            stale = try mum.run(["prompt"]).output
            return stale == "💧 750/2000\n"
        }
        #expect(refreshedAgain, "still \(stale)")

        // No server: from what this computer knows, with what waits marked, and never a wait on
        // the network. A listener takes the server's place, and no connection may reach it (one
        // that did would wait in its queue): prompt never connects, so it has nothing to wait for.
        #expect(server.stop() == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        let listener = try Socket.listen(on: server.address)
        defer { listener.close() }
        let offline = try mum.run(["prompt"])
        #expect(offline.status == 0 && offline.output == "💧 1000/2000*\n", "\(offline.output)")
        let connected = try listener.accept()
        connected?.close()
        #expect(connected == nil, "prompt connected to the server")
    }

    @Test("nudge: nothing before waking hours, one line when behind (once per interval), nothing after the goal")
    func nudge() throws {
        // 06:00 UTC, the member's zone: before the default waking hours.
        var server = try ServerProcess.fresh(["--clock", "1796018400000"])
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        #expect(try mum.run(["nudge"]).output.isEmpty)
        // 14:00: 6/14 of the day's waking hours gone and nothing drunk: behind.
        server = try server.restarted(["--listen", "127.0.0.1:\(port)", "--clock", "1796047200000"])
        // A desktop: a notify-send that writes down what it was asked to show.
        let desktop = mum.environment["XDG_STATE_HOME"]! + "/bin"
        try FileManager.default.createDirectory(atPath: desktop, withIntermediateDirectories: true)
        try "#!/bin/sh\nprintf '%s|' \"$@\" > \(desktop)/shown\n".write(
            toFile: "\(desktop)/notify-send", atomically: true, encoding: .utf8)
        chmod("\(desktop)/notify-send", 0o755)
        let onDesktop = CommandLineUser(
            environment: mum.environment.merging(["PATH": "\(desktop):/usr/bin:/bin"]) { $1 })
        let behind = try onDesktop.run(["nudge", "--notify"])
        // The server's clock runs on from 14:00: the minute is whatever it has reached.
        #expect(
            behind.status == 0
                && behind.output.prefixMatch(of: #/💧 behind today's pace: 0 of 2000 ml by 14:\d\d /#) != nil,
            "\(behind.output) \(behind.error)")
        let shown = try String(contentsOfFile: "\(desktop)/shown", encoding: .utf8)
        #expect(shown.hasPrefix("--app-name=water|Water|💧 behind today's pace"), "\(shown)")
        #expect(try mum.run(["nudge"]).output.isEmpty, "at most once per interval")
        // The last nudge made two minutes earlier (by the server's clock, which the stamp keeps):
        // due again for --every 1, not for --every 180.
        let state = mum.environment["XDG_STATE_HOME"]! + "/water/nudged"
        let last = try #require(Int64(try String(contentsOfFile: state, encoding: .utf8).filter(\.isNumber)))
        try "\(last - 120_000)\n".write(toFile: state, atomically: true, encoding: .utf8)
        #expect(try mum.run(["nudge", "--every", "180"]).output.isEmpty, "within three hours")
        #expect(try mum.run(["nudge", "--every", "1"]).output.hasPrefix("💧 behind"), "two minutes since the last")
        // Off, then on with hours that end before 14:00.
        #expect(try mum.run(["nudge", "off"]).status == 0)
        #expect(try mum.run(["nudge", "--every", "0"]).status == 64)
        #expect(try mum.run(["nudge", "on", "--hours", "07:00-13:00"]).status == 0)
        try? FileManager.default.removeItem(atPath: state)
        #expect(try mum.run(["nudge"]).output.isEmpty, "after the member's waking hours")
        #expect(try mum.run(["nudge", "on", "--hours", "08:00-22:00"]).status == 0)
        // The goal met: never again that day.
        #expect(try mum.run(["log", "2000"]).status == 0)
        try? FileManager.default.removeItem(atPath: state)
        #expect(try mum.run(["nudge"]).output.isEmpty)
        #expect(server.stop() == 0)
    }
}
