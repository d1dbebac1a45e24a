import Foundation
import Testing
import WaterClient
import WaterProtocol

/// Issue 18, item 7: the server's log cannot be forged or flooded from outside.
@Suite("The server's log, end to end", .serialized)
struct ServerLogTests {
    @Test("a newline and 900 KB in echoed fields (a goal's date, time zones): no forged line, no line over 4 KB")
    func forgedAndFlooded() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        let forgery = "\ninfo login failed user.name=dad peer=192.0.2.7:50000" + String(repeating: "x", count: 900_000)

        let goal = #expect(throws: WaterError.self) {
            try mum.call(
                WaterV1.ImportRequest(
                    history: WaterV1.MemberHistory(goals: [
                        WaterV1.DailyGoal(date: "2026-11-30" + forgery, goalMl: 2000)
                    ])))
        }
        let zone = #expect(throws: WaterError.self) {
            try mum.call(WaterV1.SetTimeZoneRequest(timeZone: "Europe/Berlin" + forgery))
        }
        let memberZone = #expect(throws: WaterError.self) {
            try mum.call(
                WaterV1.AddMemberRequest(username: "dad", password: "dad-password-1", timeZone: "UTC" + forgery))
        }
        for refusal in [goal, zone, memberZone] {
            // What the reply repeats is quoted and bounded: 40 characters and the whole length.
            #expect(refusal?.code == .invalidArgument)
            #expect(refusal.map { $0.message.utf8.count < 200 && $0.message.contains("bytes)") } == true)
            #expect(refusal?.message.contains("\n") == false)
        }
        #expect(server.stop() == 0)

        let lines = server.log.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count >= 3 && lines.allSatisfy { $0.utf8.count + 1 <= 4096 }, "\(lines.map(\.utf8.count))")
        #expect(lines.filter { $0.contains("call failed") }.count == 3)
        // Each line is one event, stamped (standard error is a pipe here, not the journal):
        // "2026-11-30T21:30:00.125Z info ...", never a line a peer made.
        let stamped = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (debug|info|warning|error) [a-z]/
        #expect(
            lines.allSatisfy { (try? stamped.prefixMatch(in: String($0))) != nil }, "\(lines.joined(separator: "\n"))")
        #expect(!lines.contains { $0.contains(" info login failed user.name=dad") && !$0.contains("call failed") })
    }

    @Test("3000 refused calls from a device with no account add at most 10 lines a 10 s window to the log")
    func refusedCallsRateLimited() throws {
        let server = try ServerProcess.fresh()
        let stranger = try WaterClient(configuration: ClientConfiguration(server: server.address, security: .plaintext))
        let started = ContinuousClock.now
        for _ in 0..<3000 {
            #expect(throws: WaterError.self) { try stranger.call(WaterV1.GetTodayRequest()) }
        }
        let windows = Int(started.duration(to: .now).components.seconds / 10) + 1
        // A member is served as ever.
        let mum = try server.client("mum", password: adminPassword)
        #expect(
            try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250)).day?.amountMl == 250)
        #expect(server.stop() == 0)
        let failed = server.log.split(separator: "\n").filter { $0.contains("call failed") }
        // Every window the flood spanned (and the one it ended in) gave the address 10 lines.
        #expect(failed.count >= 10 && failed.count <= 10 * (windows + 1), "\(failed.count) lines in \(windows) windows")
        #expect(server.log.utf8.count < 64 * 1024, "the log took \(server.log.utf8.count) bytes")
    }
}
