import Foundation
import Testing
import WaterProtocol
import WaterTLS
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

    @Test("away, week and history count a drink logged for yesterday on yesterday, listed under it, not sent yet")
    func backdatedDrinksMerged() throws {
        let server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["goal", "2000"]).status == 0)
        #expect(try mum.run(["log", "300"]).status == 0)
        #expect(try mum.run(["week"]).status == 0)
        #expect(server.stop() == 0)

        #expect(try mum.run(["log", "250", "--at", "yesterday 10:00"]).status == 0)
        #expect(try mum.run(["log", "100"]).status == 0)
        for arguments in [["week"], ["history", "--days", "3"]] {
            let shown = try mum.run(arguments)
            #expect(shown.status == 0, "\(shown)")
            let lines = shown.output.split(separator: "\n").map(String.init)
            let count = lines.count
            // ... yesterday, its waiting drink, today, its waiting drink.
            #expect(count >= 5, "\(shown.output)")
            guard count >= 5 else { continue }
            #expect(lines[count - 4].contains("  250 / 2000 ml"), "\(shown.output)")
            #expect(lines[count - 3].hasSuffix("10:00  +250 ml  (not sent yet)"), "\(shown.output)")
            #expect(lines[count - 2].contains("  400 / 2000 ml"), "\(shown.output)")
            #expect(lines[count - 1].hasSuffix("+100 ml  (not sent yet)"), "\(shown.output)")
        }
        let json = try mum.run(["--json", "week"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        #expect((object["unsent"] as? [Any])?.count == 2, "\(json.output)")
    }

    @Test("--plaintext to a server that speaks TLS says so, and keeps nothing in the outbox")
    func plaintextToTLS() throws {
        let server = try ServerProcess.fresh(tls: true)
        defer { #expect(server.stop() == 0) }
        let fingerprint = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
        let mum = try OfflineTests.member(server, login: ["--fingerprint", fingerprint.description])
        for arguments in [["log", "250"], ["todo", "add", "buy filters"], ["today"]] {
            let plain = try mum.run(["--plaintext"] + arguments)
            #expect(plain.status == 1, "\(arguments): \(plain)")
            #expect(
                plain.error.contains(
                    "the server at \(server.address) speaks TLS, not plaintext: leave out --plaintext"),
                "\(plain.error)")
        }
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
        #expect(try mum.run(["log", "250"]).output.hasPrefix("logged 250 ml"))
    }

    @Test("away, edit of a drink this computer does not know says so in one sentence")
    func offlineEditUnknown() throws {
        let server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        #expect(server.stop() == 0)
        let edit = try mum.run(["edit", "abcd1234", "--amount", "300"])
        #expect(edit.status == 65, "\(edit)")
        #expect(
            edit.error
                == "water-client: this computer knows no drink whose id starts with abcd1234: the server cannot be "
                + "reached, and only today's drinks and those waiting to be sent are known here; give the full id\n",
            "\(edit.error)")
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
    }

    @Test("nudge hours may cross midnight (22:00-06:00): a reminder at 02:00, none at noon")
    func nudgeAcrossMidnight() throws {
        // 02:00 UTC (the member's zone) on Monday 2026-11-30: four of the eight hours gone.
        var server = try ServerProcess.fresh(["--clock", "1796004000000"])
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        let on = try mum.run(["nudge", "on", "--hours", "22:00-06:00"])
        #expect(on.status == 0 && on.output.contains("between 22:00 and 06:00"), "\(on)")
        let night = try mum.run(["nudge"])
        #expect(
            night.output.prefixMatch(of: #/💧 behind today's pace: 0 of 2000 ml by 02:\d\d \(about 100\d by now\)/#)
                != nil, "\(night)")
        server = try server.restarted(["--listen", "127.0.0.1:\(port)", "--clock", "1796040000000"])
        try? FileManager.default.removeItem(atPath: mum.environment["XDG_STATE_HOME"]! + "/water/nudged")
        #expect(try mum.run(["nudge"]).output.isEmpty, "noon is outside 22:00-06:00")
        #expect(try mum.run(["nudge", "on", "--hours", "06:00-06:00"]).status == 64)
        #expect(server.stop() == 0)
    }
}
