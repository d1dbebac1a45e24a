import Foundation
import Glibc
import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

/// Tuesday 2026-03-10 12:00 UTC: the 69th day of 2026, in its week 11.
private let tuesday: Int64 = 1_773_144_000_000
/// Wednesday 2026-12-02 12:00 UTC, in week 2026-W49.
private let wednesday: Int64 = 1_796_212_800_000

/// A person at the command line whose state (status cache) is in the test's own directory.
private func person(_ server: ServerProcess, _ name: String) -> CommandLineUser {
    let base = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
    return CommandLineUser(
        environment: server.cli(name).environment.merging(["XDG_STATE_HOME": "\(base)/\(name)-state"]) { $1 })
}

/// mum, the admin, logged in at the command line.
private func loggedInMum(_ server: ServerProcess) throws -> CommandLineUser {
    let mum = person(server, "mum")
    #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
    return mum
}

/// dad (display name Dad), added by mum and logged in at the command line.
private func addedDad(_ server: ServerProcess, by mum: CommandLineUser) throws -> CommandLineUser {
    let added = try mum.run(
        ["member", "add", "dad", "--display-name", "Dad", "--password-stdin"], input: "dad-password-1\n")
    #expect(added.status == 0)
    let dad = person(server, "dad")
    #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
    return dad
}

/// mum's 2026 up to March 10th: Thursday January 1st met, Friday 75 %, Saturday 30 %, Sunday
/// 5 %, Monday met, Wednesday and Thursday met (the 8th over the goal). Goal 2000.
private func logMumsYear(_ mum: CommandLineUser) throws {
    for (day, amount) in [
        ("01", 2000), ("02", 1500), ("03", 600), ("04", 100), ("05", 2000), ("07", 2000), ("08", 1200),
    ] {
        #expect(try mum.run(["log", "\(amount)", "--at", "2026-01-\(day)T10:00Z"]).status == 0)
    }
    #expect(try mum.run(["log", "1200", "--at", "2026-01-08T11:00Z"]).status == 0)
}

@Suite("A year at a glance and the board's past weeks", .serialized)
struct YearAndHistoryTests {
    @Test("year: a year of known days, each glyph in its cell, the labels, legend and figures, and JSON")
    func yearInAPipe() throws {
        let server = try ServerProcess.fresh(["--clock", "\(tuesday)"])
        let mum = try loggedInMum(server)
        try logMumsYear(mum)
        // Tuesday January 6th excused: its own cell, and the streak runs over it (5th, 7th, 8th).
        #expect(try mum.run(["excuse", "2026-01-06", "--reason", "sick"]).status == 0)
        let shown = try mum.run(["year"])
        #expect(shown.status == 0, "\(shown.error)")
        let lines = shown.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "2026 · mum · water")
        #expect(lines[1].hasPrefix("    Jan Feb Mar  Apr May  Jun"))
        #expect(lines[2] == "Mon  █" + String(repeating: "·", count: 9) + String(repeating: " ", count: 42))
        #expect(lines[3] == "Tue  x" + String(repeating: "·", count: 9) + String(repeating: " ", count: 42))
        #expect(lines[4] == "Wed  █" + String(repeating: "·", count: 8) + String(repeating: " ", count: 43))
        #expect(lines[5] == "Thu ██" + String(repeating: "·", count: 8) + String(repeating: " ", count: 43))
        #expect(lines[6].hasPrefix("Fri ▓········· "))
        #expect(lines[7].hasPrefix("Sat ▒········· "))
        #expect(lines[8].hasPrefix("Sun ░········· "))
        #expect(lines[10] == "· 0  ░ <25 %  ▒ <50 %  ▓ <100 %  █ met  x excused  - not a member    to come")
        #expect(lines[11] == "goal met on 4 days · best streak 3 days · 10.6 l in all")
        #expect(lines.allSatisfy { $0.count <= 80 })

        let year = try mum.json(WaterV1.GetYearResponse.self, ["year"])
        #expect(year.year == 2026 && year.username == "mum" && year.today == "2026-03-10" && year.habit.isEmpty)
        #expect(year.days.count == 365)
        #expect(year.days.first?.date == "2026-01-01" && year.days.last?.date == "2026-12-31")
        #expect(year.days[0].amountMl == 2000 && year.days[0].goalMl == 2000 && year.days[0].goalMet)
        #expect(year.days[1].percent == 75 && !year.days[1].goalMet)
        #expect(year.days.filter(\.future).count == 365 - 69)
        #expect(year.days[68].date == "2026-03-10" && !year.days[68].future && year.days[69].future)
        #expect(year.days.indices.filter { year.days[$0].excused } == [5])
        // Another year, and refusals that say what is wrong.
        let before = try mum.json(WaterV1.GetYearResponse.self, ["year", "2025"])
        #expect(before.days.count == 365 && before.days.allSatisfy { $0.amountMl == 0 && !$0.future })
        #expect(try mum.json(WaterV1.GetYearResponse.self, ["year", "2024"]).days.count == 366)
        let old = try mum.run(["year", "1899"])
        #expect(old.status == 64 && old.error.contains("a year is four digits from 2000 to 9999"), "\(old.error)")
        let word = try mum.run(["year", "abc"])
        #expect(word.status == 64 && word.error.contains("got \"abc\""), "\(word.error)")
        let later = try mum.run(["year", "2027"])
        #expect(later.status == 65 && later.error.contains("2027 has not started yet"), "\(later.error)")
        #expect(server.stop() == 0)
    }

    @Test("year --habit draws the habit's checked days; --for another member's year; unknowns refused")
    func habitAndMember() throws {
        let server = try ServerProcess.fresh(["--clock", "\(tuesday)"])
        let mum = try loggedInMum(server)
        #expect(try mum.run(["habit", "add", "read", "--icon", "book", "--color", "green"]).status == 0)
        for day in ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-05"] {
            #expect(try mum.run(["habit", "check", "read", "--day", day]).status == 0)
        }
        let habitYear = try mum.run(["year", "--habit", "read"])
        let lines = habitYear.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count == 13, "\(habitYear)")
        #expect(lines[0] == "2026 · mum · habit read")
        // init made mum's account at the real time, after this server's clock: her days are not
        // hers yet ("-", issue 32 item 9) but for those her check-ins show she was there.
        #expect(lines[2].hasPrefix("Mon  █-"))
        #expect(lines[5].hasPrefix("Thu █-") && lines[6].hasPrefix("Fri █-") && lines[7].hasPrefix("Sat █-"))
        #expect(lines[8].hasPrefix("Sun --"))
        #expect(lines[11] == "checked on 4 days · best streak 3 days")
        // A habit's name is up to 64 characters: the heading still fits in 80 columns.
        let long = String(repeating: "long", count: 16)
        #expect(try mum.run(["habit", "add", long]).status == 0)
        let longYear = try mum.run(["year", "--habit", long]).output.split(separator: "\n").map(String.init)
        #expect(longYear.first == "2026 · mum · habit \(long.prefix(29))…")
        #expect(longYear.allSatisfy { $0.count <= 80 })
        let unknown = try mum.run(["year", "--habit", "juggle"])
        #expect(
            unknown.status == 65 && unknown.error.contains("you have no habit called \"juggle\""), "\(unknown.error)")

        let dad = try addedDad(server, by: mum)
        #expect(try dad.run(["log", "2000", "--at", "2026-03-09T08:00Z"]).status == 0)
        let his = try mum.run(["year", "--for", "dad"])
        #expect(his.status == 0, "\(his.error)")
        #expect(his.output.hasPrefix("2026 · Dad · water\n"))
        // Before his first drink (the day he joined, as far as his days tell) he was not a member.
        #expect(his.output.split(separator: "\n")[2].hasPrefix("Mon  " + String(repeating: "-", count: 9) + "█"))
        #expect(try mum.json(WaterV1.GetYearResponse.self, ["year", "--for", "dad"]).username == "dad")
        let nobody = try mum.run(["year", "--for", "zed"])
        #expect(nobody.status == 65 && nobody.error.contains("there is no member called \"zed\""), "\(nobody.error)")
        // Another member's habit year is theirs (issue 32): refused before the name is looked up,
        // so a guess learns nothing; an admin (mum) may see dad's, and hears he has no such habit.
        let theirs = try dad.run(["year", "--for", "mum", "--habit", "juggle"])
        #expect(theirs.status == 77 && theirs.error.contains("a habit's year is mum's own"), "\(theirs.error)")
        let hisHabit = try mum.run(["year", "--for", "dad", "--habit", "juggle"])
        #expect(hisHabit.status == 65 && hisHabit.error.contains("dad has no habit called"), "\(hisHabit.error)")
        #expect(server.stop() == 0)
    }

    @Test("year on a terminal: tmux shows 256 colours, and truecolor where COLORTERM says so")
    func yearInATerminal() throws {
        let server = try ServerProcess.fresh(["--clock", "\(tuesday)"])
        let mum = try loggedInMum(server)
        try logMumsYear(mum)
        let base = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        let configuration = "\(base)/tmux.conf"
        try "set -g default-terminal tmux-256color\n".write(
            toFile: configuration, atomically: true, encoding: .utf8)
        let client = productsDirectory.appendingPathComponent("water-client").path
        let environment = mum.environment.filter { $0.key != "NO_COLOR" }.map { "\($0.key)=\($0.value)" }.sorted()
        let colours = [
            ("", (met: "\u{1B}[38;5;45m", none: "\u{1B}[38;5;237m", future: "\u{1B}[38;5;240m")),
            (
                "truecolor",
                (met: "\u{1B}[38;2;64;214;255m", none: "\u{1B}[38;2;58;58;58m", future: "\u{1B}[38;2;88;88;88m")
            ),
        ]
        for (colorterm, colour) in colours {
            let socket = "water-year-\(getpid())-\(colorterm.isEmpty ? "256" : colorterm)"
            let tmux = { (arguments: [String]) in
                try ChildProcess.run(
                    "/usr/bin/tmux", ["-L", socket, "-f", configuration] + arguments, seconds: 30)
            }
            // The pane's shell prints a last line once water-client has exited: the pty keeps
            // order, so when tmux shows that line it has drawn all of the year before it. The
            // pane then stays open (`exec cat`): tmux 3.3 can close a pane whose process has ended
            // before reading all its output, which is the likeliest cause of a heatmap cut off part way.
            let year = (["env", "-u", "NO_COLOR"] + environment + ["COLORTERM=\(colorterm)", client, "year"])
            let command = year.joined(separator: " ") + "; echo \"water-client exited $?\"; exec cat"
            #expect(try tmux(["new-session", "-d", "-x", "90", "-y", "20", command]).status == 0)
            defer {
                // Killed by its server; gone once it no longer answers on its socket.
                #expect((try? tmux(["kill-server"]))?.status == 0)
                #expect(waitUntil { (try? tmux(["has-session"]))?.status == 1 }, "tmux -L \(socket) is still running")
                unlink("/tmp/tmux-\(getuid())/\(socket)")  // the socket it leaves behind
            }
            var screen = ""
            let exited = try waitUntil(seconds: 60) {
                screen = try tmux(["capture-pane", "-e", "-p", "-S", "-"]).output
                return screen.contains("water-client exited ")
            }
            try #require(exited, "tmux showed \(screen.debugDescription)")
            #expect(screen.contains("water-client exited 0"), "\(screen.debugDescription)")
            // tmux starts a line with the colour the last one ended in put back ("\e[39m").
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix("\u{1B}[39m") ? String($0.dropFirst(5)) : String($0)
            }
            let plain = lines.map { $0.replacing(/\x1B\[[0-9;]*m/, with: "") }
            try #require(plain.count > 11, "\(screen.debugDescription)")
            #expect(plain[0] == "2026 · mum · water", "\(screen.debugDescription)")
            #expect(plain[1] == "    Jan Feb Mar  Apr May  Jun Jul Aug  Sep Oct Nov  Dec")
            // Thursday's row: January 1st and 8th met, eight days with nothing, then to come.
            #expect(plain[5] == "Thu " + String(repeating: "█", count: 10) + String(repeating: "·", count: 43))
            #expect(
                lines[5].hasPrefix("Thu \(colour.met)██\(colour.none)████████\(colour.future)·"),
                "\(lines[5].debugDescription)")
            #expect(lines[2].hasPrefix("Mon  \(colour.met)█\(colour.none)█████████\(colour.future)·"))
            #expect(!screen.contains("░"))  // colour, not the glyphs of a pipe
            #expect(plain[10] == "█ 0  █ <25 %  █ <50 %  █ <100 %  █ met  x excused  - not a member  · to come")
            #expect(plain[11] == "goal met on 4 days · best streak 2 days · 10.6 l in all")
        }
        #expect(server.stop() == 0)
    }

    @Test("issue 32: a new household's first board says joined today; a past week led at 0 % has no winner")
    func firstBoardAndNoWinner() throws {
        let server = try ServerProcess.fresh(["--clock", "\(wednesday)"])
        let mum = try loggedInMum(server)
        // Added on Wednesday by the server's clock (mum's account is made by `init`, at the real time).
        let dad = try addedDad(server, by: mum)
        let board = try dad.run(["board"])
        let line = try #require(board.output.split(separator: "\n").first { $0.contains(" Dad ") }, "\(board.output)")
        #expect(line.contains("joined today") && !line.contains("excused"), "\(line)")
        // A sip last week: she was a member then, at 0 %, and alone (dad joined this week).
        #expect(try mum.run(["log", "10", "--at", "2026-11-23T09:00Z"]).status == 0)
        let history = try mum.run(["board", "--history", "--weeks", "2"])
        #expect(
            history.output == "Past weeks, last week first\n"
                + "2026-W48 from 2026-11-23  no winner: nobody reached 1 % of their goal\n", "\(history.output)")
        #expect(server.stop() == 0)
    }

    @Test("board --history: each past week's winner, your rank and percent, from the same rows as GetBoard")
    func boardHistory() throws {
        var server = try ServerProcess.fresh(["--clock", "\(wednesday)"])
        let mum = try loggedInMum(server)
        let dad = try addedDad(server, by: mum)
        // 2026-W48: mum 1 day met of 7 (14 %), dad 2 (28 %). W47: mum half a day (7 %); dad had
        // not joined (issue 32: he is not on it). W46: before anyone joined, so not listed.
        for (who, at) in [(mum, "2026-11-23"), (dad, "2026-11-23"), (dad, "2026-11-24")] {
            #expect(try who.run(["log", "2000", "--at", "\(at)T09:00Z"]).status == 0)
        }
        #expect(try mum.run(["log", "1000", "--at", "2026-11-16T09:00Z"]).status == 0)
        let shown = try mum.run(["board", "--history", "--weeks", "3"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(
            shown.output == """
                Past weeks, last week first
                2026-W48 from 2026-11-23  won by Dad (28 %); you came 2nd of 2 (14 %)
                2026-W47 from 2026-11-16  won by mum (7 %); you came 1st of 1 (7 %)

                """)
        let history = try mum.json(WaterV1.GetBoardHistoryResponse.self, ["board", "--history"])
        #expect(history.boards.count == 2, "the household's first week is W47")
        #expect(history.boards.map(\.week).prefix(2) == ["2026-W48", "2026-W47"])
        // The same rows GetBoard gives for that week, without their days.
        var rows = try #require(
            try mum.json(WaterV1.GetBoardResponse.self, ["board", "--week", "2026-W48"]).board?.rows)
        for index in rows.indices { rows[index].days = [] }
        #expect(history.boards[0].rows == rows)
        #expect(rows.map(\.username) == ["dad", "mum"] && rows.map(\.averagePercent) == [28, 14])
        // Bad input.
        for weeks in ["0", "9999", "many"] {
            let refused = try mum.run(["board", "--history", "--weeks", weeks])
            #expect(refused.status == 64 && refused.error.contains("--weeks must be a whole number from 1 to 52"))
        }
        #expect(try mum.run(["board", "--weeks", "3"]).error.contains("--weeks goes with --history"))
        let library = try server.client("mum", password: adminPassword)
        #expect(throws: WaterError.self) { try library.call(WaterV1.GetBoardHistoryRequest(weeks: 53)) }
        #expect(throws: WaterError.self) { try library.call(WaterV1.GetBoardHistoryRequest(weeks: 0)) }

        // The first board of a new week says who won the one before; the next does not.
        #expect(try mum.run(["log", "2000"]).status == 0)
        #expect(!(try mum.run(["board"]).output.contains("Last week")))
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(wednesday + 7 * 86_400_000)"])
        let first = try mum.run(["board"]).output
        #expect(
            first.hasPrefix("Last week (2026-W49): won by mum (14 %); you came 1st of 2 (14 %)\nWeek 2026-W50"),
            "\(first)")
        #expect(!(try mum.run(["board"]).output.contains("Last week")))
        #expect(server.stop() == 0)
    }

    @Test("prompt's {overtaken} and nudge --overtaken say who passed you on the board today, from the cache")
    func overtaken() throws {
        // The prompt counts days by this computer's clock: the server's is left alone here.
        let server = try ServerProcess.fresh()
        let mum = try loggedInMum(server)
        let dad = try addedDad(server, by: mum)
        // Awake all day, so the nudge does not depend on the hour the test runs at.
        #expect(try mum.run(["nudge", "on", "--hours", "00:00-24:00"]).status == 0)
        #expect(try mum.run(["log", "2000"]).status == 0)
        #expect(try mum.run(["board"]).status == 0)  // the day's first board: mum leads
        #expect(try mum.run(["prompt", "--format", "[{overtaken}]"]).output == "[]\n")
        #expect(try mum.run(["nudge", "--overtaken"]).output == "")
        // dad meets his goal too, with more: the same progress, a larger total.
        #expect(try dad.run(["log", "2000"]).status == 0)
        #expect(try dad.run(["log", "500"]).status == 0)
        // Not heard yet: the prompt never asks the server.
        #expect(try mum.run(["prompt", "--format", "[{overtaken}]"]).output == "[]\n")
        #expect(try mum.run(["sync", "--quiet"]).status == 0)
        #expect(try mum.run(["prompt", "--format", "[{overtaken}]"]).output == "[overtaken by Dad]\n")
        #expect(try mum.run(["prompt"]).output == "💧 2000/2000\n")  // off unless asked
        let json = try mum.run(["--json", "prompt"]).output
        #expect(json.contains("\"overtaken\":[\"Dad\"]"), "\(json)")
        #expect(try mum.run(["nudge"]).output == "")  // the goal is met, and nobody asked
        #expect(
            try mum.run(["nudge", "--overtaken"]).output
                == "💧 Dad overtook you on the board today; water-client board\n")
        #expect(server.stop() == 0)
    }
}
