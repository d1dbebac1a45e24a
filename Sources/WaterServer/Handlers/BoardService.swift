import WaterCore
import WaterProtocol

/// `water.v1.Board`: the household's weekly ranking, once or live.
struct BoardService: Service {
    let boards: BoardBuilder
    let hub: BoardHub

    func register(in router: inout Router) {
        router.onLoop(.member, board)
        router.stream(.member, watch)
    }

    /// The ranking of this week or a past one, encoded once for every caller until something
    /// on it changes.
    func board(_ request: WaterV1.GetBoardRequest, _ call: CallContext) throws(WaterError)
        -> Encoded<WaterV1.GetBoardResponse>
    {
        let current = boards.currentWeek(now: call.now)
        var week = current
        if !request.week.isEmpty {
            guard let parsed = ISOWeek(request.week) else {
                throw WaterError.invalidField(
                    "week", "a week must be an ISO week like 2026-W49, got \(quotedPeerText(request.week))")
            }
            guard parsed <= current else { throw WaterError.invalidField("week", "\(parsed) has not started yet") }
            week = parsed
        }
        return boards.encodedBoard(
            week: week, order: try boardOrder(request.order), viewer: call.account.username, now: call.now)
    }

    /// This week's ranking now and after every change, until the call is cancelled.
    func watch(_ request: WaterV1.WatchBoardRequest, _ call: CallContext, responder: Responder) throws(WaterError) {
        hub.watch(order: try boardOrder(request.order), viewer: call.account.id, responder: responder)
    }
}

private func boardOrder(_ order: WaterV1.BoardOrder) throws(WaterError) -> BoardOrder {
    switch order {
    case .progress: return .progress
    case .total: return .total
    default: throw WaterError.invalidField("order", "the order must be BOARD_ORDER_PROGRESS or BOARD_ORDER_TOTAL")
    }
}
