/// The wall's HTML, drawn on the server from a ``WallBoard`` alone: the whole page for a
/// request (it works with JavaScript off, refreshed by a `<noscript>` meta refresh), and the
/// board's part alone for the live stream, which the script puts in place. No inline script or
/// style, no external asset: the Content-Security-Policy allows only the wall's own two files.
enum WallPage {
    /// How often a page without JavaScript reloads itself, in seconds.
    static let refreshSeconds = 60

    static func document(_ board: WallBoard) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Water: the week's board</title>
        <link rel="stylesheet" href="/wall.css">
        <noscript><meta http-equiv="refresh" content="\(refreshSeconds)"></noscript>
        <script src="/wall.js" defer></script>
        </head>
        <body>
        <main id="board">
        \(fragment(board))</main>
        <footer id="live">updated every \(refreshSeconds) s</footer>
        </body>
        </html>

        """
    }

    /// The board's part of the page: who leads, the week's ranks, and today.
    static func fragment(_ board: WallBoard) -> String {
        var html = "<h1>Week \(escaped(board.week))</h1>\n"
        html += "<p class=\"leader\">"
        html += board.leader.map { "\(escaped($0)) leads" } ?? "No one has drunk anything yet"
        html += "</p>\n<table class=\"week\">\n"
        html += "<thead><tr><th>#</th><th>Name</th><th>Average</th><th>%</th><th>Days met</th>"
        html += "<th>Streak</th></tr></thead>\n<tbody>\n"
        for row in board.rows {
            html += "<tr><td class=\"rank\">\(row.rank)</td><td class=\"name\">\(escaped(row.displayName))</td>"
            html += "<td class=\"bar\">\(meter(row.averagePercent, banded: true))</td>"
            html += "<td class=\"percent\">\(row.averagePercent)&nbsp;%</td><td class=\"met\">\(row.daysMet)/7</td>"
            html += "<td class=\"streak\">\(row.streakDays)&nbsp;d</td></tr>\n"
        }
        html += "</tbody>\n</table>\n<h2>Today</h2>\n<ul class=\"today\">\n"
        for row in board.rows {
            html += "<li><span class=\"name\">\(escaped(row.displayName))</span> "
            html += "\(meter(row.todayPercent, banded: false)) "
            html += "<span class=\"figure\">\(row.todayPercent)&nbsp;%"
            if let amounts = row.amounts {
                html += " · \(amounts.todayMillilitres) of \(amounts.goalMillilitres)&nbsp;ml"
            }
            html += "</span></li>\n"
        }
        html += "</ul>\n"
        return html
    }

    /// A bar of `percent`; `banded`, coloured by how far the week's average is from the goal.
    static func meter(_ percent: Int, banded: Bool) -> String {
        let bands = banded ? " low=\"50\" high=\"99\" optimum=\"100\"" : ""
        return "<meter min=\"0\" max=\"100\"\(bands) value=\"\(percent)\">\(percent) %</meter>"
    }

    /// `text` safe inside an element or a quoted attribute.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
