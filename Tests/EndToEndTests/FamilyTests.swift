import Foundation
import Glibc
import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

/// Thursday 2026-11-26 18:00 UTC: the server's clock for these tests, in week 2026-W48.
let thursday: Int64 = Int64(LocalDate("2026-11-26")!.daysSinceEpoch) * 86_400_000 + 18 * 3_600_000

@Suite("A family of three, end to end", .serialized)
struct FamilyTests {
    @Test("logs, edits, undoes, backdates and changes goals; the board ranks as computed by hand")
    func weekOfAFamily() throws {
        var server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(
            try mum.run(
                ["member", "add", "kid", "--display-name", "Kiddo", "--password-stdin"], input: "kid-password-1\n"
            ).status == 0)
        let dad = server.cli("dad")
        let kid = server.cli("kid")
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try kid.run(["login", "kid", "--password-stdin"], input: "kid-password-1\n").status == 0)

        // mum, goal 2000: 2000, 1000, 2500, 500 -> 1, .5, 1, .25 -> 68 %, 6000 ml, 2 days met.
        for (day, amounts) in [("23", [1000, 1000]), ("24", [1000]), ("25", [1000, 1000, 500]), ("26", [500])] {
            for (n, amount) in amounts.enumerated() {
                #expect(try mum.run(["log", "\(amount)", "--at", "2026-11-\(day)T0\(8 + n):00Z"]).status == 0)
            }
        }
        // dad: 1500 a day; on Thursday his goal becomes 1500, Monday to Wednesday keep 2000:
        // .75, .75, .75, 1 -> 81 %, 6000 ml, 1 day met.
        for day in ["23", "24", "25", "26"] {
            #expect(try dad.run(["log", "1500", "--at", "2026-11-\(day)T12:00Z"]).status == 0)
        }
        #expect(try dad.run(["goal", "1500"]).status == 0)

        // kid: Monday's 1000 edited to 500, a mistaken drink undone, 2000 on Tuesday and
        // Wednesday, and on Thursday the seed's worked example: 250 (12 %), then 350 (30 %).
        let mondayEntry = try kid.json(WaterV1.LogWaterResponse.self, ["log", "1000", "--at", "2026-11-23T10:00Z"])
            .entry
        let mondayID = try #require(mondayEntry?.entryID)
        let monday = try kid.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "4"])
        #expect(monday.days.map(\.amountMl) == [1000, 0, 0, 0])
        for day in ["24", "25"] {
            #expect(try kid.run(["log", "1000", "--at", "2026-11-\(day)T10:00Z"]).status == 0)
            #expect(try kid.run(["log", "1000", "--at", "2026-11-\(day)T11:00Z"]).status == 0)
        }
        #expect(try kid.run(["log", "700", "--at", "2026-11-25T12:00Z"]).status == 0)
        #expect(try kid.run(["undo"]).status == 0)

        // A restart between steps: everything is still there. On the same address: a login is its
        // server's, by address.
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(thursday)"])
        let kidAgain = server.cli("kid")
        let dadAgain = server.cli("dad")
        let mumAgain = server.cli("mum")
        let first = try kidAgain.json(WaterV1.LogWaterResponse.self, ["log", "250"])
        #expect(first.day.map { [$0.amountMl, Int32($0.count), Int32($0.percent)] } == [250, 1, 12])
        let second = try kidAgain.json(WaterV1.LogWaterResponse.self, ["log", "350"])
        #expect(
            second.day.map { [$0.amountMl, Int32($0.count), Int32($0.percent), $0.remainingMl] } == [600, 2, 30, 1400])
        // Edit Monday's drink from 1000 to 500 by the full id its log reply gave.
        #expect(try kidAgain.run(["edit", mondayID, "--amount", "500"]).status == 0)
        // A replayed id is recognised: the same drink is not counted twice.
        let replayID = "0192e4a0-7b5c-8cc3-8a1e-6f1d2b3c4d5e"
        #expect(try dadAgain.run(["log", "100", "--at", "2026-11-26T17:00Z", "--id", replayID]).status == 0)
        let replay = try dadAgain.json(
            WaterV1.LogWaterResponse.self, ["log", "100", "--at", "2026-11-26T17:00Z", "--id", replayID])
        #expect(replay.duplicate)
        #expect(replay.day?.amountMl == 1600)
        #expect(try dadAgain.run(["rm", replayID]).status == 0)

        // kid: .25, 1, 1, .3 -> 63 %, 5100 ml, 2 met.
        let board = try mumAgain.json(WaterV1.GetBoardResponse.self, ["board", "--explain"]).board
        let rows = try #require(board?.rows)
        #expect(board?.week == "2026-W48")
        #expect(rows.map(\.username) == ["dad", "mum", "kid"])
        #expect(rows.map(\.averagePercent) == [81, 68, 63])
        #expect(rows.map(\.totalMl) == [6000, 6000, 5100])
        #expect(rows.map(\.daysMet) == [1, 2, 2])
        #expect(rows.map(\.rank) == [1, 2, 3])
        #expect(rows[0].days.map(\.goalMl) == [2000, 2000, 2000, 1500])
        #expect(rows[2].displayName == "Kiddo")
        // By total, dad and mum tie on 6000 ml; dad's better progress puts him first.
        let byTotal = try kidAgain.json(WaterV1.GetBoardResponse.self, ["board", "--by", "total"]).board
        #expect(byTotal?.rows.map(\.username) == ["dad", "mum", "kid"])

        // Everything survives one more restart, and the human board says the same.
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(thursday)"])
        let text = try server.cli("mum").run(["board"]).output
        #expect(text.contains("1. Dad") || text.contains("1. dad"))
        let after = try server.cli("mum").json(WaterV1.GetBoardResponse.self, ["board"]).board
        #expect(after?.rows.map(\.averagePercent) == [81, 68, 63])
        #expect(server.stop() == 0)
    }
}

@Suite("The live board, end to end", .serialized)
struct LiveBoardTests {
    @Test("board --watch shows a new board when anyone logs a drink")
    func watch() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let process = try ChildProcess(
            productsDirectory.appendingPathComponent("water-client").path,
            ["--json", "board", "--watch"], environment: mum.environment)
        // Wait for the first board (a line), log a drink elsewhere, wait for the next line, then
        // stop it (by pid) and read the rest of what it printed.
        let first = process.readOutput(until: { $0.contains("\n") }, seconds: 30)
        let client = try server.client("mum", password: adminPassword)
        _ = try client.call(WaterV1.LogWaterRequest(entryID: client.newID().description, amountMl: 300))
        let next = process.readOutput(until: { $0.contains("\n") }, seconds: 30)
        kill(process.pid, SIGTERM)
        let lines = (first + next + process.readOutput()).split(separator: "\n").map(String.init)
        process.wait()
        let boards = try lines.map { try JSONDecoder().decode(WaterV1.WatchBoardResponse.self, from: Data($0.utf8)) }
        #expect(boards.count == 2)
        #expect(boards.first?.board?.rows.first?.totalMl == 0)
        #expect(boards.last?.board?.rows.first?.totalMl == 300)
    }

    @Test("board --watch survives a server restart: it says so on screen and reconnects")
    func watchReconnects() throws {
        var server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let process = try ChildProcess(
            productsDirectory.appendingPathComponent("water-client").path, ["board", "--watch"],
            environment: mum.environment)
        defer {
            kill(process.pid, SIGTERM)
            process.wait()
        }
        #expect(process.readOutput(until: { $0.contains("ranked by") }, seconds: 30).contains("Week "))
        // The nightly upgrade: the server stops, and starts again on the same port.
        server = try server.restarted(["--listen", "127.0.0.1:\(server.address.port)"])
        let notice = process.readOutput(until: { $0.contains("trying again") }, seconds: 30)
        #expect(notice.contains("trying again in 1 s"), "\(notice)")
        let back = process.readOutput(until: { $0.contains("ranked by") }, seconds: 30)
        #expect(back.contains("Week "), "the board is back after the restart: \(back)")
        let client = try server.client("mum", password: adminPassword)
        _ = try client.call(WaterV1.LogWaterRequest(entryID: client.newID().description, amountMl: 300))
        let live = process.readOutput(until: { $0.contains("300 ml") }, seconds: 30)
        #expect(live.contains("300 ml"), "still live after the restart: \(live)")
        #expect(process.isRunning)
        #expect(server.stop() == 0)
    }
}
