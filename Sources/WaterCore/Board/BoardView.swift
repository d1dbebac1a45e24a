/// One row of a board as one viewer is allowed to see it.
public struct BoardViewRow: Hashable, Sendable {
    /// The standing with its rank among the viewer's rows.
    public var standing: BoardStanding
    /// The viewer's own row while they are hidden: no one else's board has it.
    public var onlyYouSeeThis: Bool
    /// Another member's row whose privacy is ``Privacy/percent``: its millilitres and entry
    /// counts must not leave the server.
    public var amountsHidden: Bool
}

extension WeeklyBoard {
    /// The board as `viewer` (a username; nil for a screen that is no one's, like the wall)
    /// may see it: the members who are not hidden, plus the viewer, ranked again among
    /// themselves in the full board's order (a tie stays a tie). So others' ranks are computed
    /// without a hidden member, who sees themself where they would stand among the others.
    /// The ranking itself is computed once, on everyone's full figures.
    public func view(for viewer: String?) -> [BoardViewRow] {
        var rows: [BoardViewRow] = []
        var previousFullRank = 0
        for standing in standings where standing.privacy != .hidden || standing.username == viewer {
            var shown = standing
            let isOwn = standing.username == viewer
            if let last = rows.last, previousFullRank == standing.rank {
                shown.rank = last.standing.rank
            } else {
                shown.rank = rows.count + 1
            }
            previousFullRank = standing.rank
            rows.append(
                BoardViewRow(
                    standing: shown, onlyYouSeeThis: isOwn && standing.privacy == .hidden,
                    amountsHidden: !isOwn && standing.privacy == .percent))
        }
        return rows
    }

    /// Whether every viewer sees the same board (no one has chosen less than full).
    public var isSameForEveryone: Bool { standings.allSatisfy { $0.privacy == .full } }
}
