import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `board [--week last|YYYY-Www] [--by total] [--explain] [--watch]`.
enum BoardCommand {
    static func run(_ invocation: inout Invocation) throws {
        let weekOption = try invocation.arguments.option("week")
        let by = try invocation.arguments.option("by")
        let explain = invocation.arguments.flag("explain")
        let watch = invocation.arguments.flag("watch")
        try invocation.arguments.finish()
        let order: WaterV1.BoardOrder
        switch by {
        case nil, "progress": order = .progress
        case "total": order = .total
        case let other?: throw UsageError("--by takes total or progress, got \(other)")
        }
        let client = try invocation.client()
        if watch {
            guard weekOption == nil else { throw UsageError("--watch shows the current week; leave out --week") }
            let json = invocation.json
            try client.stream(WaterV1.WatchBoardRequest(order: order)) { response in
                if json {
                    Terminal.print(Invocation.json(response))
                } else {
                    // Redraw in place on a terminal; one board after another otherwise.
                    if Terminal.usesColour { Terminal.write(1, "\u{1B}[2J\u{1B}[H") }
                    Terminal.print(render(response.board ?? WaterV1.WeeklyBoard(), explain: explain) + "\n")
                }
                return true
            }
            return
        }
        let week = try Invocation.week(weekOption)
        let response = try client.call(WaterV1.GetBoardRequest(week: week, order: order))
        invocation.output(response) { render(response.board ?? WaterV1.WeeklyBoard(), explain: explain) }
    }

    static func render(_ board: WaterV1.WeeklyBoard, explain: Bool) -> String {
        var lines = [
            "\(Format.bold("Week \(board.week)")) from \(board.startsOn), ranked by "
                + (board.order == .total ? "total" : "average daily progress")
        ]
        if board.rows.isEmpty { lines.append("no members yet") }
        for row in board.rows {
            let name = row.displayName.padding(toLength: 14, withPad: " ", startingAt: 0)
            lines.append(
                "\(Format.pad("\(row.rank).", 3)) \(name) \(Format.bar(row.averageProgress, width: 12)) "
                    + "\(Format.pad("\(row.averagePercent)", 3)) %  \(Format.pad("\(row.totalMl)", 6)) ml  "
                    + "\(row.daysMet) met  streak \(row.streakDays)  habits \(row.habitCheckins)")
            if explain {
                for day in row.days {
                    lines.append(
                        "      \(day.date)  \(Format.pad("\(day.amountMl)", 5)) / \(day.goalMl) ml  \(Format.pad("\(day.percent)", 3)) %"
                            + (day.goalMet ? "  met" : ""))
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
