/// One row of a board as one viewer is allowed to see it.
public struct BoardViewRow: Hashable, Sendable {
    /// The standing with its rank among the viewer's rows; 0 for a row that is not ranked
    /// (a ``Privacy/percent`` member's on a board by total: their total is theirs).
    public var standing: BoardStanding
    /// The viewer's own row while they are hidden: no one else's board has it.
    public var onlyYouSeeThis: Bool
    /// Another member's row whose privacy is ``Privacy/percent`` (or was hidden since): its
    /// millilitres and entry counts must not leave the server.
    public var amountsHidden: Bool
    /// Another member's row on a finished week who has hidden since: it keeps its place (a
    /// finished week keeps its winner and ranks) and shows neither name nor figure.
    public var hiddenSince: Bool
    /// Placed by its shown percent alone: a ``Privacy/percent`` member's row as the week stood,
    /// from whose place nothing may be worked out.
    var placedByPercent: Bool
}

extension WeeklyBoard {
    /// The board as `viewer` (a username; nil for a screen that is no one's, like the wall)
    /// may see it: the members who are not hidden, plus the viewer, ranked again among
    /// themselves. So others' ranks are computed without a hidden member, who sees themself
    /// where they would stand among the others.
    ///
    /// A `percent` member's row is placed by what the viewer sees of it alone, so that no
    /// reply, and no series of replies with the viewer's own figures moved, tells more than
    /// the truncated percent (issue 32): by progress, rows are ranked by their shown percent,
    /// and rows that show the same percent as such a row share its rank (the exact figures and
    /// the totals that would part them are hidden); by total, such a row is not ranked at all
    /// and follows the ranked ones, by its shown percent. Rows with nothing hidden keep the
    /// full board's order, a tie staying a tie.
    public func view(for viewer: String?) -> [BoardViewRow] {
        // `standings` is in the full board's order: rows that share a shown percent are together.
        let rows = standings.compactMap { standing -> BoardViewRow? in
            let isOwn = standing.username == viewer
            guard standing.privacy != .hidden || isOwn else { return nil }
            return BoardViewRow(
                standing: standing, onlyYouSeeThis: isOwn && standing.privacy == .hidden,
                amountsHidden: !isOwn && (standing.privacy != .full || standing.privacyNow != .full),
                hiddenSince: !isOwn && standing.privacyNow == .hidden,
                placedByPercent: !isOwn && standing.privacy == .percent)
        }
        switch order {
        case .progress:
            return Self.rankedByShownPercent(rows)
        case .chores:
            // What ranks them (chores done, then progress) is shown to everyone but the exact
            // progress: ties are as the full board has them.
            return Self.ranked(rows)
        case .total:
            let unranked = rows.filter(\.placedByPercent).sorted { lhs, rhs in
                Self.shown(lhs) != Self.shown(rhs)
                    ? Self.shown(lhs) > Self.shown(rhs) : lhs.standing.username < rhs.standing.username
            }
            return Self.ranked(rows.filter { !$0.placedByPercent }) + unranked.map { $0.ranked(0) }
        }
    }

    /// Whether every viewer sees the same board (no one has chosen less than full).
    public var isSameForEveryone: Bool { standings.allSatisfy { $0.privacy == .full && $0.privacyNow == .full } }

    /// What anyone sees a row ranked by: whether it had a day to count, then its percent.
    private static func shown(_ row: BoardViewRow) -> (Int, Int) {
        (row.standing.allExcused ? 0 : 1, row.standing.averagePercent)
    }

    /// `rows`, in the full board's order, ranked 1, 2, 2, 4: a row ties the one before when the
    /// full board tied them.
    private static func ranked(_ rows: [BoardViewRow]) -> [BoardViewRow] {
        var ranked = rows
        for index in ranked.indices {
            let tied = index > 0 && rows[index].standing.rank == rows[index - 1].standing.rank
            ranked[index].standing.rank = tied ? ranked[index - 1].standing.rank : index + 1
        }
        return ranked
    }

    /// `rows`, in the full board's order, ranked by their shown percent: each run of rows that
    /// show the same one keeps the full board's order and ties, unless a `percent` member's row
    /// is in it; then the whole run shares the run's first rank, by name.
    private static func rankedByShownPercent(_ rows: [BoardViewRow]) -> [BoardViewRow] {
        var result: [BoardViewRow] = []
        var start = 0
        while start < rows.count {
            let end = rows[start...].firstIndex { shown($0) != shown(rows[start]) } ?? rows.count
            let run = rows[start..<end]
            if run.contains(where: \.placedByPercent) {
                result += run.sorted { $0.standing.username < $1.standing.username }.map { $0.ranked(start + 1) }
            } else {
                result += ranked(Array(run)).map { $0.ranked($0.standing.rank + start) }
            }
            start = end
        }
        return result
    }
}

extension BoardViewRow {
    /// The row at `rank`.
    fileprivate func ranked(_ rank: Int) -> BoardViewRow {
        var row = self
        row.standing.rank = rank
        return row
    }
}
