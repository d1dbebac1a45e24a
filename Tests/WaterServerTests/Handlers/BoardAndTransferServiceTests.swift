import Dispatch
import Testing
import WaterCore
import WaterProtocol
import WaterSync

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

    @Test(
        "issue18: an Import is decoded, checked and decided on the import queue, never where it came in; another member is answered meanwhile"
    )
    func issue18_importOffTheLoop() throws {
        let queue = DispatchQueue(label: "test.import")
        queue.suspend()
        let h = try H(importQueue: queue)
        let bea = try h.addMember("bea")
        let handler = try #require(h.services.router().handler(for: WaterV1.ImportRequest.method))
        guard case .later(let handle) = handler.kind else {
            Issue.record("Import is answered on the loop")
            return
        }
        let replies = Locked<[WaterV1.ResponseEnvelope]>([])
        let answered = DispatchSemaphore(value: 0)
        func responder(_ callID: UInt64) -> Responder {
            Responder(
                callID: callID, method: WaterV1.ImportRequest.method.fullName,
                deliver: { envelope, _ in
                    replies.withLock { $0.append(envelope) }
                    answered.signal()
                },
                deliverFramed: { _, _ in Issue.record("Import answers once, with no stream") },
                writer: FrameWriter(maximumPayloadLength: 1 << 20), onCancel: { _ in })
        }
        let history = WaterV1.MemberHistory(
            entries: (1...3).map {
                WaterV1.WaterEntry(entryID: newID(), amountMl: 250, atUnixMs: H.monday - Int64($0) * H.hour)
            })
        let good = try IncomingCall(
            payload: WaterV1.RequestEnvelope(callID: 2, request: WaterV1.ImportRequest(history: history))
                .serializedBytes())
        // ImportRequest.history (1) of 260 000 empty entries (3): one field repeated.
        let entries = [UInt8]((0..<260_000).lazy.flatMap { _ in [UInt8(0x1A), 0x00] })
        let repeated = try IncomingCall(
            payload: WaterV1.RequestEnvelope(
                callID: 3, method: WaterV1.ImportRequest.method.fullName, authToken: [],
                payload: [0x0A, 0xC0, 0xDE, 0x1F] + entries, cancel: false
            ).serializedBytes())
        let context = H.context(H.caller(h.admin), now: H.monday, from: "127.0.0.1")
        handle(good, context, responder(2))
        handle(repeated, context, responder(3))

        // Both wait on the queue: nothing decoded, decided or answered yet, and another
        // member's call is answered meanwhile.
        #expect(replies.withLock { $0.isEmpty })
        _ = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 300), as: bea, now: H.monday
        ).get()
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == 0)

        queue.resume()
        for _ in 0..<2 { #expect(answered.wait(timeout: .now() + 30) == .success) }
        let byCall = Dictionary(uniqueKeysWithValues: replies.withLock { $0 }.map { ($0.callID, $0) })
        #expect(try byCall[2]?.response(as: WaterV1.ImportResponse.self).entriesAdded == 3)
        #expect(byCall[3]?.statusCode == .resourceExhausted, "\(String(describing: byCall[3]))")
        #expect(byCall[3]?.status?.message.contains("at most 131072 fields") == true)
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == 3)
    }

    @Test(
        "issue18: an Import of more entries than a part adds each once, in parts; one refused entry at the end adds nothing"
    )
    func issue18_importInParts() throws {
        let h = try H()
        let count = 2 * Import.entriesPerPart + 500
        // An hour apart: 24 a day, within the day's cap of drinks.
        let entries = (0..<count).map {
            WaterV1.WaterEntry(entryID: newID(), amountMl: 250, atUnixMs: H.monday - H.hour * Int64($0 + 1))
        }
        #expect(Import.parts(of: WaterV1.MemberHistory(entries: entries)).map(\.entries.count) == [1000, 1000, 500, 0])
        var refused = WaterV1.MemberHistory(entries: entries)
        refused.entries.append(WaterV1.WaterEntry(entryID: newID(), amountMl: 5000, atUnixMs: H.monday - H.hour))
        let error = h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: refused), as: h.admin).error
        #expect(error?.violations.map(\.field) == ["entries.amount_ml"])
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == 0)

        let history = WaterV1.MemberHistory(
            entries: entries, goals: [WaterV1.DailyGoal(date: "2026-11-01", goalMl: 2500)])
        let first = try h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).get()
        #expect(first.entriesAdded == UInt32(count) && first.goalsAdded == 1)
        let second = try h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).get()
        #expect(second.entriesAdded == 0 && second.goalsAdded == 0)
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == count)
    }
}
