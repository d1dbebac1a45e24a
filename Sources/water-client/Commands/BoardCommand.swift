import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `board [--week last|YYYY-Www] [--by total] [--explain] [--watch]`.
enum BoardCommand: ClientCommand {
    static let spec = CommandSpec(
        "board", summary: "the household's weekly ranking",
        details: """
            The household's weekly ranking by average daily progress (or --by total, or --by chores:
            the household's chores done this week, then percent); each row shows chores done of those
            due that were the member's turn. --explain
            shows each day and which key broke a tie the screen does not show; --watch keeps it
            live, and waits for the server when it restarts. --history lists past weeks, each with
            its winner and where you came; the first board of a new week says who won the last.
            Members who chose privacy percent show no millilitres (-), hidden ones are not on it;
            your own row is always whole (see privacy --help).
            """,
        options: [
            weekOption,
            OptionSpec(
                "by", "ORDER", "rank by progress (default), total or chores done",
                choices: ["progress", "total", "chores"]),
            OptionSpec("explain", nil, "show each member's days and what broke ties"),
            OptionSpec("watch", nil, "keep the board on screen, redrawn on every change"),
            OptionSpec("history", nil, "list past weeks: each week's winner, your rank and percent"),
            OptionSpec("weeks", "N", "with --history: how many past weeks (1-52, default 8)"),
        ],
        examples: ["board", "board --week last --explain", "board --watch", "board --history --weeks 4"])

    static func run(_ invocation: inout Invocation) throws {
        let weekOption = try invocation.arguments.option("week")
        let by = try invocation.arguments.option("by")
        let explain = invocation.arguments.flag("explain")
        let watch = invocation.arguments.flag("watch")
        let history = invocation.arguments.flag("history")
        let weeks = try invocation.arguments.integer("weeks", in: UInt32(1)...52)
        try invocation.arguments.finish()
        guard history || weeks == nil else { throw UsageError("--weeks goes with --history") }
        let order: WaterV1.BoardOrder
        switch by {
        case nil, "progress": order = .progress
        case "total": order = .total
        case "chores": order = .chores
        case let other?: throw UsageError("--by takes progress, total or chores, got \(other)")
        }
        if watch {
            guard weekOption == nil else { throw UsageError("--watch shows the current week; leave out --week") }
            try watchBoard(&invocation, order: order, explain: explain)
        }
        let client = try invocation.client()
        if history {
            guard weekOption == nil, !watch, !explain else {
                throw UsageError("--history lists past weeks; leave out --week, --watch and --explain")
            }
            let response = try client.call(WaterV1.GetBoardHistoryRequest(weeks: weeks ?? 8, order: order))
            let me = invocation.session()?.username ?? ""
            return invocation.output(response) { renderHistory(response.boards, me: me) }
        }
        let week = try Invocation.week(weekOption) {
            try client.call(WaterV1.GetBoardRequest(order: order)).board?.week ?? ""
        }
        let response = try client.call(WaterV1.GetBoardRequest(week: week, order: order))
        let board = response.board ?? WaterV1.WeeklyBoard()
        let lastWeek = weekOption == nil ? try lastWeekNews(invocation, board: board, client: client) : nil
        invocation.outputText(BoardReplyJSON(response.board)) { (lastWeek ?? "") + render(board, explain: explain) }
    }

    /// On the first board of a new week this member sees here, who won the week before (a line
    /// to go above the board); nil on any other. Remembered in the status cache.
    private static func lastWeekNews(_ invocation: Invocation, board: WaterV1.WeeklyBoard, client: WaterClient)
        throws -> String?
    {
        guard let current = ISOWeek(board.week) else { return nil }
        let seen = invocation.updateCache { cache in
            defer { cache.boardWeekSeen = current.description }
            cache.record(board: board)
            return cache.boardWeekSeen
        }
        guard !invocation.json, let seen = seen ?? nil, let before = ISOWeek(seen), before < current else {
            return nil
        }
        let previous = current.previous
        let last = try client.call(WaterV1.GetBoardRequest(week: previous.description, order: board.order)).board
        guard let last else { return nil }
        return "Last week (\(previous)): \(weekResult(last, me: invocation.session()?.username ?? ""))\n"
    }

    /// Past weeks, last week first: each week's winner and where this member came.
    static func renderHistory(_ boards: [WaterV1.WeeklyBoard], me: String) -> String {
        ([Format.bold("Past weeks") + ", last week first"]
            + boards.map { "\($0.week.terminalSafe) from \($0.startsOn.terminalSafe)  \(weekResult($0, me: me))" })
            .joined(separator: "\n")
    }

    /// "won by Ann (93 %); you came 2nd of 3 (71 %)", or that nobody drank anything that week.
    static func weekResult(_ board: WaterV1.WeeklyBoard, me: String) -> String {
        let figure = { (row: WaterV1.BoardRow) in
            switch board.order {
            case .total: row.amountsHidden ? "- ml" : "\(row.totalMl) ml"
            case .chores: Format.counted(row.choresDone, "chore", "chores")
            default: "\(row.averagePercent) %"
            }
        }
        let winners = board.rows.filter { $0.rank == 1 }
        // Tied first places share their figures: any one shown says them.
        let shownWinner = winners.first { !$0.hiddenSince }
        if board.order == .chores {
            guard winners.contains(where: \.hiddenSince) || (shownWinner?.choresDone ?? 0) > 0 else {
                return "no winner: nobody did a chore"
            }
        } else if !board.rows.contains(where: { $0.hiddenSince || $0.totalMl > 0 || $0.averageProgress > 0 }) {
            return "nobody drank anything"
        }
        // A first place at 0 % is no win: nobody reached any of their goal.
        if board.order == .progress, let shownWinner, shownWinner.averagePercent == 0 {
            return "no winner: nobody reached 1 % of their goal"
        }
        var text =
            "won by \(winners.map(name).joined(separator: " and "))" + (shownWinner.map { " (\(figure($0)))" } ?? "")
        if let mine = board.rows.first(where: { $0.username == me }) {
            text += "; you came \(ordinal(Int(mine.rank))) of \(board.rows.count) (\(figure(mine)))"
        }
        return text
    }

    /// The row's display name with its control characters neutralised, whatever a server sent;
    /// for a member who has hidden since the week, that they did (their row keeps its place).
    static func name(_ row: WaterV1.BoardRow) -> String {
        row.hiddenSince ? "someone who has hidden since" : row.displayName.terminalSafe
    }

    /// 1st, 2nd, 3rd, 4th, 11th, 21st ...
    static func ordinal(_ number: Int) -> String {
        let suffix =
            (11...13).contains(number % 100)
            ? "th" : number % 10 == 1 ? "st" : number % 10 == 2 ? "nd" : number % 10 == 3 ? "rd" : "th"
        return "\(number)\(suffix)"
    }

    /// The live board, until Ctrl-C or SIGTERM. A family-room screen must survive the server's
    /// nightly restart: when the connection is lost (or the server ends the stream as it shuts
    /// down), it says so on screen and connects again, waiting 1, 2, 4 ... up to 30 seconds.
    private static func watchBoard(_ invocation: inout Invocation, order: WaterV1.BoardOrder, explain: Bool) throws
        -> Never
    {
        let json = invocation.json
        var delay: UInt32 = 1
        while true {
            let reason: String
            do {
                try invocation.client().stream(WaterV1.WatchBoardRequest(order: order)) { response in
                    delay = 1
                    if json {
                        Terminal.print(Invocation.json(BoardReplyJSON(response.board)))
                    } else {
                        // Redraw in place on a terminal; one board after another otherwise.
                        if Terminal.usesColour { Terminal.write(1, "\u{1B}[2J\u{1B}[H") }
                        Terminal.print(render(response.board ?? WaterV1.WeeklyBoard(), explain: explain) + "\n")
                    }
                    return true
                }
                reason = "the server ended the live board (it is restarting?)"
            } catch let error as WaterError where error.exitStatus == .unavailable {
                reason = error.message
            }
            let notice = "\(reason); trying again in \(delay) s (Ctrl-C stops)"
            // On the screen the board was on, broken at spaces to its width (the terminal would
            // break it mid-word); with --json, beside the JSON lines.
            if json {
                Terminal.error("water-client: \(notice)")
            } else {
                Terminal.print(Terminal.columns.map { notice.wrapped(columns: $0).joined(separator: "\n") } ?? notice)
            }
            sleep(delay)
            delay = min(delay * 2, 30)
        }
    }

    static func render(_ board: WaterV1.WeeklyBoard, explain: Bool) -> String {
        var lines = [
            "\(Format.bold("Week \(board.week.terminalSafe)")) from \(board.startsOn.terminalSafe), ranked by "
                + (board.order == .total ? "total" : board.order == .chores ? "chores done" : "average daily progress")
        ]
        if board.rows.isEmpty { lines.append("no members yet") }
        for (index, row) in board.rows.enumerated() {
            guard !row.hiddenSince else {
                lines.append("\(Format.pad("\(row.rank).", 3)) \(name(row))")
                continue
            }
            let shownName = Format.column(name(row), 14)
            // A week with every day excused has no percent to show: it says so, and ranks last.
            let percent =
                row.allExcused
                ? "\(Format.pad("", 12)) excused"
                : "\(Format.bar(row.averageProgress, width: 12)) "
                    + "\(Format.pad("\(row.averagePercent)", 3)) %"
            // A percent member's millilitres never reached this computer: a dash, not a 0.
            let total = row.amountsHidden ? "     -" : Format.pad("\(row.totalMl)", 6)
            // Rank 0: a percent member on a board by total, whom no hidden figure may place.
            let rank = row.rank == 0 ? "-" : "\(row.rank)."
            lines.append(
                "\(Format.pad(rank, 3)) \(shownName) \(percent)  \(total) ml  "
                    + "\(row.daysMet) met  streak \(row.streakDays)  best \(row.bestStreakDays)  habits \(row.habitCheckins)"
                    + "  chores \(row.choresDone)/\(row.choresDue)"
                    + joinedAndExcused(row)
                    + (row.onlyYouSeeThis ? "  (only you see this)" : ""))
            if explain, index > 0, let why = tieBreak(board.rows[index - 1], row, order: board.order) {
                lines.append("      \(why)")
            }
            if explain {
                for day in row.days where row.amountsHidden {
                    lines.append(
                        "      \(day.date.terminalSafe)  \(Format.pad("\(day.percent)", 3)) %"
                            + (day.excused ? "  excused, not counted" : day.goalMet ? "  met" : ""))
                }
                if row.amountsHidden, !row.days.isEmpty {
                    lines.append(
                        "      the average is of the exact days, which \(row.displayName.terminalSafe) keeps private: "
                            + "each day above is truncated")
                }
                for day in row.days where !row.amountsHidden {
                    lines.append(
                        "      \(day.date.terminalSafe)  \(Format.pad("\(day.amountMl)", 5)) / \(day.goalMl) ml  \(Format.pad("\(day.percent)", 3)) %"
                            + (day.excused
                                ? "  excused"
                                    + (day.excusedReason.isEmpty ? "" : " (\(day.excusedReason.terminalSafe))")
                                    + ", not counted"
                                : day.goalMet ? "  met" : ""))
                }
            }
        }
        if board.rows.contains(where: { $0.rank == 0 }) {
            lines.append("-   not ranked by total: a member who shares only percents keeps their millilitres private")
        }
        if let level = Privacy(rawValue: Int(board.viewerPrivacy.rawValue)), level != .full {
            lines.append("your privacy is \(level): \(level.othersSee) (water-client privacy)")
        }
        for member in board.unavailable {
            let name = Format.column(member.displayName.terminalSafe, 14)
            lines.append(
                "  - \(name) unavailable: their archive cannot be read until an admin repairs it (water-server check)")
        }
        return lines.joined(separator: "\n")
    }

    /// "  joined Wed 2026-12-02" for a member who joined during the week (their days before
    /// are not counted, and were not excused by them), "  2 days not a member" for days they were
    /// removed, then "  2 excused" for days they excused.
    static func joinedAndExcused(_ row: WaterV1.BoardRow) -> String {
        let beforeJoining = row.days.prefix { $0.excused && $0.excusedReason == Membership.notYet }
        let away = row.days.filter { $0.excused && $0.excusedReason == Membership.notThen }.count
        let excused = row.excusedDays - UInt32(beforeJoining.count + away)
        var joined = ""
        if !beforeJoining.isEmpty, beforeJoining.count < row.days.count {
            // A week still running shows its days up to today: its last one, joined, is today.
            let isToday = beforeJoining.count == row.days.count - 1 && row.days.count < 7
            joined = "  joined " + (isToday ? "today" : Format.dayName(row.days[beforeJoining.count].date))
        }
        return joined + (away == 0 ? "" : "  \(away) day\(away == 1 ? "" : "s") not a member")
            + (excused == 0 ? "" : "  \(excused) excused")
    }

    /// Why `row` comes after `above` when the figures shown are the same, or nil when they
    /// differ at a glance.
    static func tieBreak(_ above: WaterV1.BoardRow, _ row: WaterV1.BoardRow, order: WaterV1.BoardOrder) -> String? {
        // Nothing of a member who has hidden since is shown, their figures included.
        guard !above.hiddenSince else { return nil }
        let name = above.displayName.terminalSafe
        if order == .chores {
            guard above.choresDone == row.choresDone else { return nil }
            if above.averagePercent != row.averagePercent {
                return "same \(Format.counted(row.choresDone, "chore", "chores")) done as \(name); ranked after by "
                    + "average progress (\(row.averagePercent) % against \(above.averagePercent) %)"
            }
        } else if order == .total {
            guard above.totalMl == row.totalMl, !above.amountsHidden, !row.amountsHidden else { return nil }
            if above.averageProgress != row.averageProgress {
                return "same total as \(name); ranked after by average progress "
                    + "(\(exact(row.averageProgress)) against \(exact(above.averageProgress)))"
            }
        } else {
            guard above.averagePercent == row.averagePercent else { return nil }
            if above.amountsHidden || row.amountsHidden {
                return "same \(row.averagePercent) % as \(name) on screen; a member here shares only percents, "
                    + "so nothing finer may part them: the same rank, listed by username"
            }
            if above.averageProgress != row.averageProgress {
                return "same \(row.averagePercent) % as \(name) on screen; ranked after by the exact average "
                    + "(\(exact(row.averageProgress)) against \(exact(above.averageProgress)))"
            }
            if above.totalMl != row.totalMl {
                return
                    "same average progress as \(name); ranked after by total (\(row.totalMl) ml against \(above.totalMl) ml)"
            }
        }
        return above.rank == row.rank
            ? "tied with \(name) on every figure: the same rank, listed by username"
            : nil
    }

    private static func exact(_ progress: Double) -> String {
        let hundredths = Int((progress * 10_000).rounded())
        return "\(hundredths / 100).\(String(hundredths % 100).leftPadded(2)) %"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
