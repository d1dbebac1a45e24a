import WaterCore
import WaterProtocol

extension Router {
    /// `water.v1.Board`: the household's weekly ranking, once or live.
    mutating func registerBoard() {
        immediate(WaterV1.GetBoardRequest.self, .member) { request, context throws(WaterError) in
            let boards = context.services.boards
            let current = boards.currentWeek(now: context.now)
            var week = current
            if !request.week.isEmpty {
                guard let parsed = ISOWeek(request.week) else {
                    throw WaterError.invalidField(
                        "week", "must be an ISO week like 2026-W49, got \"\(request.week.prefix(20))\"")
                }
                guard parsed <= current else { throw WaterError.invalidField("week", "\(parsed) has not started yet") }
                week = parsed
            }
            let order = try boardOrder(request.order)
            return WaterV1.GetBoardResponse(board: boards.wireBoard(week: week, order: order, now: context.now))
        }

        stream(WaterV1.WatchBoardRequest.self, .member) { request, context, responder in
            do throws(WaterError) {
                context.services.boardHub.watch(order: try boardOrder(request.order), responder: responder)
            } catch {
                responder.finish(error)
            }
        }
    }
}

private func boardOrder(_ order: WaterV1.BoardOrder) throws(WaterError) -> BoardOrder {
    switch order {
    case .progress: return .progress
    case .total: return .total
    default: throw WaterError.invalidField("order", "must be BOARD_ORDER_PROGRESS or BOARD_ORDER_TOTAL")
    }
}
