import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// Points of issue 11, through the real binaries.
@Suite("Command line fixes, end to end", .serialized)
struct CommandLineFixesTests {
    @Test("log 0 is refused (65) instead of logging the usual cup; 580 of 2000 is 29 %, not 28")
    func amountsAndPercent() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let zero = try mum.run(["log", "0"])
        #expect(zero.status == 65 && zero.error.contains("between 1 and 2000"), "\(zero.error)")
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.isEmpty)
        #expect(try mum.run(["log", "580"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.percent == 29)
        #expect(server.stop() == 0)
    }

    @Test("exit codes: logout twice is 0 with a note, the last admin 1 (the household may not), an unknown id 65")
    func exitCodes() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let unasked = try mum.run(["member", "rm", "mum"])
        #expect(unasked.status == 64 && unasked.error.contains("--yes"), "no terminal to ask: \(unasked.error)")
        let lastAdmin = try mum.run(["member", "rm", "mum", "--yes"])
        #expect(lastAdmin.status == 1 && lastAdmin.error.contains("last admin"), "\(lastAdmin.error)")
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let removed = try mum.run(["member", "rm", "dad", "--yes"])
        #expect(removed.status == 0 && removed.output.contains("nothing is deleted"), "\(removed.error)")
        let unknown = try mum.run(["rm", "beef"])
        #expect(unknown.status == 65, "\(unknown.error)")
        #expect(try mum.run(["logout"]).status == 0)
        let again = try mum.run(["logout"])
        #expect(again.status == 0 && again.output.contains("not logged in"))
        #expect(server.stop() == 0)
    }

    @Test("todo done twice stays done, undone reopens, and mv speaks in the list's own numbers")
    func todoDoneAndPositions() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for text in ["buy water filters", "call grandma"] { #expect(try mum.run(["todo", "add", text]).status == 0) }
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: call grandma"))
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: call grandma"))
        #expect(try mum.json(WaterV1.ListTodosResponse.self, ["todo", "ls"]).items.map(\.done) == [false, true])
        #expect(try mum.run(["todo", "undone", "2"]).output.contains("not done: call grandma"))
        let far = try mum.run(["todo", "mv", "1", "99"])
        #expect(far.status == 65 && far.error.contains("between 1 and 2, got 99"), "\(far.error)")
        #expect(server.stop() == 0)
    }

    @Test("board --explain says which key broke a tie the screen does not show")
    func boardTies() throws {
        let server = try ServerProcess.fresh(["--clock", "1796040000000"])  // Monday 12:00 UTC
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for name in ["ann", "bea", "cal"] {
            #expect(
                try mum.run(["member", "add", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
        }
        // 71.25 %, 71 % and 71 %: all three show 71 %.
        for (name, amount) in [("ann", "1425"), ("bea", "1420"), ("cal", "1420")] {
            let member = server.cli(name)
            #expect(try member.run(["login", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
            #expect(try member.run(["log", amount]).status == 0)
        }
        let board = try mum.run(["board", "--explain"]).output
        #expect(
            board.contains("same 71 % as ann on screen; ranked after by the exact average (71.00 % against 71.25 %)"),
            "\(board)")
        #expect(board.contains("tied with bea on every figure: the same rank, listed by username"), "\(board)")
        #expect(server.stop() == 0)
    }

    @Test("undo never reaches into last week; that drink can still be removed by its id")
    func undoStopsAtTheWeek() throws {
        // Monday 2026-11-30 12:00 UTC on the server's clock: Sunday is last week.
        let server = try ServerProcess.fresh(["--clock", "1796040000000"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let sunday = try mum.json(WaterV1.LogWaterResponse.self, ["log", "250", "--at", "2026-11-29 12:00"])
        #expect(sunday.entry?.date == "2026-11-29")
        let undo = try mum.run(["undo"])
        #expect(undo.status == 65 && undo.error.contains("2026-11-29"), "\(undo.error)")
        #expect(try mum.run(["rm", sunday.entry?.entryID ?? ""]).status == 0)
        #expect(server.stop() == 0)
    }

    @Test("a member's time zone can be moved from the command line; init --help names --time-zone")
    func timeZones() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["zone"]).output.contains("your days follow UTC"))
        let moved = try mum.run(["zone", "America/New_York"])
        #expect(moved.status == 0 && moved.output.contains("now follow America/New_York"), "\(moved.error)")
        #expect(
            try mum.json(WaterV1.ListMembersResponse.self, ["member", "ls"]).members.first?.timeZone
                == "America/New_York")
        #expect(try mum.run(["zone", "Mars/Olympus"]).status == 65)
        #expect(try run("water-server", ["init", "--help"]).output.contains("--admin NAME [--time-zone ZONE]"))
        #expect(server.stop() == 0)
    }

    @Test("water-server status shows a compaction within a second of it, not at the next tick")
    func statusAfterCompaction() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        var logged = 0
        // About 60 bytes a record: 400 fill the first 8 KiB segment well past its end. An hour
        // apart, back from now: a day holds at most 100 drinks (WaterLimits).
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        while logged < 400 {
            let at = now - Int64(logged) * 3_600_000
            _ = try mum.call(
                WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 100, atUnixMs: at))
            logged += 1
        }
        // The status file names the compaction (however long it took), written for it: at the
        // moment it finished, not at the next 5-second tick. Both times are the server's.
        var status: [String: String] = [:]
        #expect(
            waitUntil {
                status = server.statusFile; return status["last_compaction"] != nil
            }, "\(status)")
        let compacted = try #require(status["last_compaction"]?.split(separator: " ").first.flatMap { Int64($0) })
        let written = try #require(status["updated_at_unix_ms"].flatMap { Int64($0) })
        #expect(written - compacted < 2500, "written \(written - compacted) ms after the compaction")
        let shown = try run("water-server", ["status", "--data", server.dataDirectory]).output
        #expect(shown.contains("last compaction: ") && !shown.contains("none since"), "\(shown)")
        #expect(server.stop() == 0)
    }

    @Test("something that is not a water server is named as such, in one line, exit 69")
    func notAWaterServer() throws {
        // An HTTP server's answer to anything.
        try withFakeServer({ fd in
            var buffer = [UInt8](repeating: 0, count: 512)
            _ = read(fd, &buffer, buffer.count)
            let reply = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8)
            _ = write(fd, reply, reply.count)
        }) { port in
            let environment = [
                "WATER_SERVER": "127.0.0.1:\(port)", "XDG_CONFIG_HOME": NSTemporaryDirectory() + "/nws-\(UUID())",
            ]
            for plaintext in [true, false] {
                let result = try run(
                    "water-client", (plaintext ? ["--plaintext"] : []) + ["login", "mum", "--password-stdin"],
                    input: "x\n", environment: environment)
                #expect(result.status == 69, "\(result.error)")
                #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
                #expect(result.error.contains(plaintext ? "is not a water server" : "no secure connection"))
            }
        }
    }

    @Test("times are the member's whatever the terminal's zone, and every reply about a day names it")
    func daysNamedInTheMembersZone() throws {
        // Monday 2026-11-30 12:00 UTC; mum has lived in New York all along (a move would count
        // the hours before it in her old zone: ZoneHistoryTests).
        let server = try ServerProcess.fresh(["--clock", "1796040000000"], zone: "America/New_York")
        let setup = server.cli("mum")
        #expect(try setup.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try setup.run(["zone", "America/New_York"]).status == 0)
        // The same person, at a terminal set to Tokyo (14 hours ahead of New York).
        let mum = CommandLineUser(environment: setup.environment.merging(["TZ": "Asia/Tokyo"]) { $1 })
        let late = try mum.run(["log", "300", "--at", "2026-11-29 23:30"])
        #expect(late.output.hasPrefix("logged 300 ml water at 23:30 on Sun 2026-11-29 ("), "\(late.output)")
        #expect(late.output.contains("\nSun 2026-11-29  "), "the day's total names its day: \(late.output)")
        let early = try mum.run(["log", "250", "--at", "2026-11-30 00:30"])
        #expect(early.output.hasPrefix("logged 250 ml water at 00:30 on Mon 2026-11-30 ("), "\(early.output)")
        #expect(early.output.contains("\nMon 2026-11-30  "), "\(early.output)")
        let today = try mum.run(["today"]).output
        #expect(today.hasPrefix("Today, Mon 2026-11-30\n") && today.contains("  00:30  +250 ml"), "\(today)")
        #expect(try mum.run(["undo"]).output.hasPrefix("removed 250 ml logged at 00:30 on Mon 2026-11-30\n"))
        #expect(server.stop() == 0)
    }

    @Test("ids shown by history --entries work in edit and rm, any day; an ambiguous start lists the candidates")
    func idsAcrossDays() throws {
        let server = try ServerProcess.fresh(["--clock", "1796040000000"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let yesterday = try mum.json(WaterV1.LogWaterResponse.self, ["log", "300", "--at", "2026-11-29 08:00"])
        let today = try (0..<3).map { _ in try mum.json(WaterV1.LogWaterResponse.self, ["log", "200"]) }
        let short = { (response: WaterV1.LogWaterResponse) in
            String(response.entry!.entryID.filter { $0 != "-" }.dropFirst(4).prefix(8))
        }
        let listed = try mum.run(["history", "--days", "2", "--entries"]).output
        for response in [yesterday] + today { #expect(listed.contains(short(response)), "\(listed)") }

        // Yesterday's drink, by the id history showed.
        let edited = try mum.run(["edit", short(yesterday), "--amount", "350"])
        #expect(
            edited.status == 0 && edited.output.hasPrefix("now 350 ml at 08:00 on Sun 2026-11-29"), "\(edited.error)")
        // Three drinks logged within a second share the start of their short ids.
        let start = String(short(today[0]).prefix(4))
        let ambiguous = try mum.run(["rm", start])
        #expect(ambiguous.status == 65 && ambiguous.error.contains("\(start) fits"), "\(ambiguous.error)")
        for response in today { #expect(ambiguous.error.contains(short(response)), "\(ambiguous.error)") }
        #expect(try mum.run(["rm", short(yesterday)]).status == 0)
        #expect(try mum.run(["rm", "ffff0000"]).status == 65)
        let history = try mum.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "2", "--entries"])
        #expect(history.entries.map(\.entryID) == today.reversed().map { $0.entry!.entryID })
        #expect(server.stop() == 0)
    }

    @Test("habit ls on a terminal: the whole header, every escape closed, and each habit's icon")
    func habitGrid() throws {
        let server = try ServerProcess.fresh(["--clock", "1796040000000"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["habit", "add", "Run", "--icon", "sportscourt"]).status == 0)
        #expect(try mum.run(["habit", "check", "Run"]).status == 0)
        // A terminal: `script` runs the command on a pseudo-terminal, so colours are on (unless
        // NO_COLOR is set, which the test's own environment may do).
        let client = productsDirectory.appendingPathComponent("water-client").path
        let terminal = try ChildProcess.run(
            "/usr/bin/script", ["-qec", "env -u NO_COLOR \(client) habit ls", "/dev/null"],
            environment: mum.environment)
        let output = terminal.output
        #expect(output.contains("\u{1B}[1mWeek 2026-W49\u{1B}[0m"), "\(output.debugDescription)")
        #expect(!output.contains("\u{1B}[0M"), "no delete-line escape")
        // Every escape that starts a style is followed by one that ends it.
        let escapes = output.components(separatedBy: "\u{1B}[").count - 1
        let resets = output.components(separatedBy: "\u{1B}[0m").count - 1
        #expect(escapes == 2 * resets && resets > 1, "\(output.debugDescription)")
        #expect(output.contains("🏀 Run"))
        // Plain, the columns line up under the days.
        let plain = try mum.run(["habit", "ls"]).output.split(separator: "\n")
        #expect(plain[0] == "Week 2026-W49  Mo Tu We Th Fr Sa Su", "\(plain)")
        #expect(plain[1] == "🏀 Run         ■  ·  ·  ·  ·  ·  ·  streak 1, best 1", "\(plain)")
        #expect(server.stop() == 0)
    }
}
