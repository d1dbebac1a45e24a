import Testing
import WaterCore

/// Each viewer's rows of a family of four, Monday to Thursday (goal 2000), by hand:
/// ann (full)    2000 x 4               -> 1, 1, 1, 1 -> 100 %, 8000 ml, 4 met, streak 4.
/// cat (percent) 1500 x 4               -> .75 each   ->  75 %, 6000 ml, 0 met.
/// ben (hidden)  2000, 2000, 1000, 0    -> 1, 1, .5, 0 -> 62 % (62.5), 5000 ml, 2 met.
/// dan (full)    500 x 4                -> .25 each   ->  25 %, 2000 ml, 0 met.
/// The full ranking is ann 1, cat 2, ben 3, dan 4.
@Suite("Board views")
struct BoardViewTests {
    private func board() throws -> WeeklyBoard {
        WeeklyBoard(
            members: [
                try member("ann", amounts: [2000, 2000, 2000, 2000]),
                try member("ben", amounts: [2000, 2000, 1000, 0], privacy: .hidden),
                try member("cat", amounts: [1500, 1500, 1500, 1500], privacy: .percent),
                try member("dan", amounts: [500, 500, 500, 500]),
            ], week: week, order: .progress, now: thursday)
    }

    /// (username, rank, only you see this, amounts hidden) of each row.
    private func rows(_ view: [BoardViewRow]) -> [String] {
        view.map {
            "\($0.standing.username) \($0.standing.rank)\($0.onlyYouSeeThis ? " only-you" : "")"
                + ($0.amountsHidden ? " amounts-hidden" : "")
        }
    }

    @Test("the full ranking counts everyone; the others' boards leave the hidden member out and rank without them")
    func othersBoards() throws {
        let board = try board()
        #expect(
            board.standings.map { "\($0.username) \($0.rank) \($0.averagePercent)" } == [
                "ann 1 100", "cat 2 75", "ben 3 62", "dan 4 25",
            ])
        #expect(rows(board.view(for: "ann")) == ["ann 1", "cat 2 amounts-hidden", "dan 3"])
        #expect(rows(board.view(for: "dan")) == ["ann 1", "cat 2 amounts-hidden", "dan 3"])
        #expect(rows(board.view(for: nil)) == ["ann 1", "cat 2 amounts-hidden", "dan 3"])
        #expect(!board.isSameForEveryone)
    }

    @Test("a hidden member sees themself ranked among the others, marked; a percent member sees their own amounts")
    func ownRows() throws {
        let board = try board()
        #expect(rows(board.view(for: "ben")) == ["ann 1", "cat 2 amounts-hidden", "ben 3 only-you", "dan 4"])
        #expect(rows(board.view(for: "cat")) == ["ann 1", "cat 2", "dan 3"])
        let ben = try #require(board.view(for: "ben").first { $0.standing.username == "ben" })
        #expect(ben.standing.totalMillilitres == 5000 && ben.standing.daysMet == 2)
    }

    @Test("a tie stays a tie when a hidden member leaves the ranks above it")
    func ties() throws {
        let board = WeeklyBoard(
            members: [
                try member("ann", amounts: [2000, 2000, 2000, 2000], privacy: .hidden),
                try member("eve", amounts: [1000, 1000, 1000, 1000]),
                try member("fay", amounts: [1000, 1000, 1000, 1000]),
            ], week: week, order: .progress, now: thursday)
        #expect(rows(board.view(for: "eve")) == ["eve 1", "fay 1"])
        #expect(rows(board.view(for: "ann")) == ["ann 1 only-you", "eve 2", "fay 2"])
        #expect(board.view(for: "eve").count == 2)
    }
}
