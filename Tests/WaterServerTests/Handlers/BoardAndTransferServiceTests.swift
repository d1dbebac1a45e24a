import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// `water.v1.Board` and `water.v1.Transfer` handlers, called in process on a real store.
@Suite("Board and transfer services")
struct BoardAndTransferServiceTests {
    typealias H = HandlerHarness

    @Test(
        "GetBoard ranks this week's drinks at once after they are logged, and refuses a week not started and an unknown order"
    )
    func board() throws {
        let h = try H()
        let bea = try h.addMember("bea")
        for (member, amount) in [(h.admin, Int32(500)), (bea, 1500)] {
            _ = try h.call(
                h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: amount), as: member
            ).get()
        }
        let board = try h.call(h.board.board, WaterV1.GetBoardRequest(order: .total), as: h.admin).get()
        #expect(board.board?.rows.map(\.username) == ["bea", "ann"])
        #expect(board.board?.rows.map(\.totalMl) == [1500, 500])
        let future = h.call(h.board.board, WaterV1.GetBoardRequest(week: "2026-W50", order: .total), as: h.admin)
        #expect(future.error?.violations.map(\.field) == ["week"])
        let noOrder = h.call(
            h.board.board, WaterV1.GetBoardRequest(order: WaterV1.BoardOrder(rawValue: 7)), as: h.admin)
        #expect(noOrder.error?.violations.map(\.field) == ["order"])
    }

    @Test("ImportHistory adds what is missing and nothing the second time; without a history it is refused")
    func importTwice() throws {
        let h = try H()
        let history = WaterV1.MemberHistory(
            entries: [
                WaterV1.WaterEntry(entryID: newID(), amountMl: 250, atUnixMs: H.monday - 30 * H.hour),
                WaterV1.WaterEntry(entryID: newID(), amountMl: 400, atUnixMs: H.monday - 2 * H.hour),
            ])
        let first = try h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).get()
        #expect(first.entriesAdded == 2)
        let second = try h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).get()
        #expect(second.entriesAdded == 0)
        let missing = h.call(h.transfer.importHistory, WaterV1.ImportRequest(), as: h.admin).error
        #expect(missing?.violations.map(\.field) == ["history"])
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == 2)
    }
}
