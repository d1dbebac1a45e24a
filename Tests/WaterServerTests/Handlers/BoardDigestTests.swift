import Testing
import WaterProtocol

@testable import WaterServer

/// What makes two boards the same to a watcher (issue 31 item 3).
@Suite("Board digest")
struct BoardDigestTests {
    static let board = WaterV1.WeeklyBoard(
        week: "2026-W49", rows: [WaterV1.BoardRow(rank: 1, username: "mum", displayName: "Mum", totalMl: 300)],
        generatedAtUnixMs: 1_000)

    @Test("the time a board was made is no change; a row's figure, name or a new row is")
    func sameAndChanged() {
        var later = Self.board
        later.generatedAtUnixMs = 61_000
        #expect(BoardDigest(later) == BoardDigest(Self.board))
        var drank = Self.board
        drank.rows[0].totalMl = 550
        var renamed = Self.board
        renamed.rows[0].displayName = "Mother"
        var added = Self.board
        added.rows.append(WaterV1.BoardRow(rank: 2, username: "papa", displayName: "papa"))
        for changed in [drank, renamed, added] { #expect(BoardDigest(changed) != BoardDigest(Self.board)) }
    }
}
