import Foundation
import Testing
import WaterClient
import WaterCore
import WaterProtocol

/// Chores on the board beside water (issue 33 item 4), through the real server and command line.
@Suite("Chores on the board, end to end", .serialized)
struct ChoresBoardTests {
    @Test(
        "each row counts the chores done and due this week, in board, --json, --by chores, history and a live board; a hidden member is on nobody else's"
    )
    func choresOnTheBoard() throws {
        var server = try ServerProcess.fresh(ChoresTests.serve("2027-01-04", 10))  // a Monday
        let port = server.address.port
        let people = try ChoresTests.family(server)
        let (mum, ann, ben, dad) = (people["mum"]!, people["ann"]!, people["ben"]!, people["dad"]!)
        #expect(try ann.run(["todo", "add", "bins out", "--every", "week", "--rotate", "ann,ben"]).status == 0)
        #expect(try ann.run(["todo", "add", "feed the cat", "--every", "day", "--for", "kim"]).status == 0)
        #expect(try ann.run(["todo", "add", "buy water filters"]).status == 0)
        // A live board, which hears of chores from the same durable notice as of drinks.
        let watch = try BoardWatch(server, token: try server.client("mum", password: adminPassword).token)
        #expect(watch.waitForBoards(1).count == 1)

        let ids = Dictionary(uniqueKeysWithValues: try ChoresTests.list(ann).map { ($0.text, $0.itemID) })
        let (bins, cat, filters) = (ids["bins out"]!, ids["feed the cat"]!, ids["buy water filters"]!)
        // ann's turn, done by ben: ben has the credit, ann had the turn.
        #expect(try ben.run(["todo", "done", bins]).status == 0)
        let live = watch.waitForBoards(2)
        let liveBen = live.last?.rows.first { $0.username == "ben" }
        #expect(live.count == 2 && liveBen?.choresDone == 1, "\(live.map(\.rows))")
        // dad marks kim's chore for her, on Monday and Tuesday.
        #expect(try dad.run(["todo", "done", cat, "--for", "kim"]).status == 0)
        server = try server.restarted(ChoresTests.serve("2027-01-05", 10, port: port))
        #expect(try dad.run(["todo", "done", cat, "--for", "kim"]).status == 0)
        // A plain item changes no board's figures.
        #expect(try mum.run(["todo", "done", filters]).status == 0)

        let board = try ann.json(WaterV1.GetBoardResponse.self, ["board"]).board!
        let rows = Dictionary(uniqueKeysWithValues: board.rows.map { ($0.username, $0) })
        // Done: credited. Due: the turns of the week done or skipped, and the open occurrence
        // (kim's daily chore: Monday and Tuesday done, Wednesday open, 3; ben's bins are due next
        // Monday, not this week).
        #expect(rows["ben"]?.choresDone == 1 && rows["ben"]?.choresDue == 0)
        #expect(rows["ann"]?.choresDone == 0 && rows["ann"]?.choresDue == 1)
        #expect(rows["kim"]?.choresDone == 2 && rows["kim"]?.choresDue == 3, "\(String(describing: rows["kim"]))")
        #expect(rows["dad"]?.choresDone == 0 && rows["mum"]?.choresDone == 0)
        #expect(try ann.run(["board"]).output.contains("chores 2/3"))

        // By chores: kim (2) first, then ben (1), then the rest tied at 0 chores and 0 %.
        let byChores = try ann.json(WaterV1.GetBoardResponse.self, ["board", "--by", "chores"]).board!
        #expect(byChores.order == .chores)
        #expect(
            byChores.rows.prefix(2).map(\.username) == ["kim", "ben"] && byChores.rows.prefix(2).map(\.rank) == [1, 2])
        #expect(Set(byChores.rows.dropFirst(2).map(\.rank)) == [3])
        #expect(try ann.run(["board", "--by", "chores"]).output.contains("ranked by chores done"))
        let explained = try ann.run(["board", "--by", "chores", "--explain"]).output
        #expect(explained.contains("tied with"), "\(explained)")

        // Privacy as for the rest of the row: hidden, kim is on nobody else's board.
        #expect(try dad.run(["privacy", "hidden", "--for", "kim"]).status == 0)
        let hidden = try ann.json(WaterV1.GetBoardResponse.self, ["board", "--by", "chores"]).board!
        #expect(!hidden.rows.contains { $0.username == "kim" } && hidden.rows.first?.username == "ben")
        #expect(try dad.run(["privacy", "full", "--for", "kim"]).status == 0)

        // The week after: its board starts at 0 done; last week's, in the history, keeps them.
        server = try server.restarted(ChoresTests.serve("2027-01-11", 10, port: port))
        let next = try ann.json(WaterV1.GetBoardResponse.self, ["board"]).board!
        #expect(next.rows.allSatisfy { $0.choresDone == 0 })
        let history = try ann.json(
            WaterV1.GetBoardHistoryResponse.self, ["board", "--history", "--weeks", "1", "--by", "chores"])
        #expect(history.boards.first?.rows.first { $0.username == "kim" }?.choresDone == 2)
        let text = try ann.run(["board", "--history", "--weeks", "1", "--by", "chores"]).output
        #expect(text.contains("won by kim (2 chores)"), "\(text)")
        #expect(server.stop() == 0)
    }
}
