import WaterCore
import WaterProtocol

/// `water.v1.Board`: the household's weekly ranking, once or live.
struct BoardService: Service {
    let boards: BoardBuilder
    let hub: BoardHub
    let streams: SessionStreams
    /// Where the board's history is read, off the loop.
    let reads: ReadPool

    func register(in router: inout Router) {
        router.onLoop(.member, board)
        router.stream(.member, watch)
        router.offLoop(.member, pool: reads, history)
    }

    /// The boards of the weeks before this one, last week first (1 to ``historyWeeks``).
    func history(_ request: WaterV1.GetBoardHistoryRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.GetBoardHistoryResponse
    {
        guard (1...UInt32(Self.historyWeeks.upperBound)).contains(request.weeks) else {
            throw WaterError.invalidField("weeks", "the board's history covers 1 to 52 weeks, got \(request.weeks)")
        }
        return WaterV1.GetBoardHistoryResponse(
            boards: boards.history(
                weeks: Int(request.weeks), order: try boardOrder(request.order), viewer: call.account.username,
                now: call.now))
    }

    /// How many past weeks GetBoardHistory answers at most: a year.
    static let historyWeeks = 1...52

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

    /// This week's ranking now and whenever it changes, until the call is cancelled or its
    /// session ends.
    func watch(_ request: WaterV1.WatchBoardRequest, _ call: CallContext, responder: Responder) throws(WaterError) {
        let order = try boardOrder(request.order)
        hub.watch(order: order, viewer: call.account.id, responder: responder)
        streams.tie(responder, to: call)
    }
}

private func boardOrder(_ order: WaterV1.BoardOrder) throws(WaterError) -> BoardOrder {
    switch order {
    case .progress: return .progress
    case .total: return .total
    case .chores: return .chores
    default:
        throw WaterError.invalidField(
            "order", "the order must be BOARD_ORDER_PROGRESS, BOARD_ORDER_TOTAL or BOARD_ORDER_CHORES")
    }
}
