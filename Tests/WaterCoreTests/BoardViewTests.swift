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

    /// `member` with privacy `before` up to this week and `now` from its Monday on.
    private func changing(_ member: BoardMember, from before: Privacy, to now: Privacy) -> BoardMember {
        var member = member
        var levels = DayHistory(original: before)
        levels.set(now, from: week.monday)
        member.privacyHistory = levels
        return member
    }

    @Test("issue 32 item 4: a finished week keeps its winner and ranks when members choose other levels later")
    func finishedWeekKept() throws {
        // Last week: jonas 100 %, oma 75 %, ben (hidden then) 87 %, kim 50 %. This Monday jonas
        // went hidden, oma percent, ben full.
        let members = [
            changing(
                try member("jonas", amounts: [], lastWeek: Array(repeating: 2000, count: 7)), from: .full, to: .hidden),
            changing(
                try member("oma", amounts: [], lastWeek: Array(repeating: 1500, count: 7)), from: .full, to: .percent),
            changing(
                try member("ben", amounts: [], lastWeek: Array(repeating: 1750, count: 7)), from: .hidden, to: .full),
            try member("kim", amounts: [], lastWeek: Array(repeating: 1000, count: 7)),
        ]
        let lastWeek = WeeklyBoard(members: members, week: ISOWeek("2026-W48")!, order: .progress, now: thursday)
        // jonas keeps first place, with neither name nor figure; oma her place, by her exact
        // figures then, without millilitres now; ben, hidden then, is still off the week.
        let kim = lastWeek.view(for: "kim")
        #expect(rows(kim) == ["jonas 1 amounts-hidden", "oma 2 amounts-hidden", "kim 3"])
        #expect(kim[0].hiddenSince && !kim[1].hiddenSince && !kim[2].hiddenSince)
        #expect(rows(lastWeek.view(for: nil)) == rows(kim))
        // Each still sees their own row whole; ben sees himself where he stood, as only he did.
        #expect(rows(lastWeek.view(for: "jonas")) == ["jonas 1", "oma 2 amounts-hidden", "kim 3"])
        #expect(
            rows(lastWeek.view(for: "ben")) == [
                "jonas 1 amounts-hidden", "ben 2 only-you", "oma 3 amounts-hidden", "kim 4",
            ])
        // This week already follows the new levels: jonas is off it, ben on it.
        let thisWeek = WeeklyBoard(members: members, week: week, order: .progress, now: thursday)
        #expect(thisWeek.view(for: "kim").map(\.standing.username).sorted() == ["ben", "kim", "oma"])
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

    /// The rows of the board of `members` for `order`, as `viewer` sees them.
    private func ranked(_ order: BoardOrder, _ members: [BoardMember], for viewer: String?) -> [String] {
        rows(WeeklyBoard(members: members, week: week, order: order, now: thursday).view(for: viewer))
    }

    @Test(
        "issue 32: by progress, a percent member is placed by the percent shown alone: rows showing the same one share its rank"
    )
    func percentMemberByProgress() throws {
        // cat (percent): 1010 x 4 -> 50.5 %, shown 50; eve 1000 x 4 -> 50 %; fay 1015 x 4 -> 50.75 %,
        // shown 50; gil 1200 x 4 -> 60 %. By exact progress fay 2, cat 3, eve 4: that order would
        // tell eve, moving her own figures, where cat's hidden fraction lies.
        let members = [
            try member("cat", amounts: [1010, 1010, 1010, 1010], privacy: .percent),
            try member("eve", amounts: [1000, 1000, 1000, 1000]),
            try member("fay", amounts: [1015, 1015, 1015, 1015]),
            try member("gil", amounts: [1200, 1200, 1200, 1200]),
        ]
        #expect(ranked(.progress, members, for: "eve") == ["gil 1", "cat 2 amounts-hidden", "eve 2", "fay 2"])
        #expect(ranked(.progress, members, for: nil) == ["gil 1", "cat 2 amounts-hidden", "eve 2", "fay 2"])
        // cat herself sees her own figures: nothing of hers is hidden from her, so the full order.
        #expect(ranked(.progress, members, for: "cat") == ["gil 1", "fay 2", "cat 3", "eve 4"])
        // Without a percent member among them, equal shown percents keep the exact order.
        let open = members.map { member -> BoardMember in
            var member = member
            member.privacyHistory = DayHistory(original: .full)
            return member
        }
        #expect(ranked(.progress, open, for: "eve") == ["gil 1", "fay 2", "cat 3", "eve 4"])
    }

    @Test("issue 32: by total, a percent member is not ranked at all and follows the ranked rows, by percent")
    func percentMemberByTotal() throws {
        // cat (percent) 1500 x 4 = 6000 ml, 75 %; dan (percent) 2000 x 4, 100 %; ann 1900 x 4 = 7600;
        // eve 1000 x 4 = 4000. By total cat would sit between ann and eve, and eve could find
        // cat's total by moving her own until she passes her.
        let members = [
            try member("ann", amounts: [1900, 1900, 1900, 1900]),
            try member("cat", amounts: [1500, 1500, 1500, 1500], privacy: .percent),
            try member("dan", amounts: [2000, 2000, 2000, 2000], privacy: .percent),
            try member("eve", amounts: [1000, 1000, 1000, 1000]),
        ]
        #expect(
            ranked(.total, members, for: "eve") == ["ann 1", "eve 2", "dan 0 amounts-hidden", "cat 0 amounts-hidden"])
        #expect(ranked(.total, members, for: "cat") == ["ann 1", "cat 2", "eve 3", "dan 0 amounts-hidden"])
    }
}
