import Testing

@testable import WaterWall

/// The wall's pure parts: its routing, and the HTML drawn from a board (which the live stream's
/// script puts in place with innerHTML, so every name must arrive escaped).
@Suite("The kitchen wall's page and routes")
struct WallPageTests {
    private static let token = String(repeating: "a", count: 42) + "Q"

    @Test("routes: the page and its stream by a token's shape, the two files, /metrics; anything else is not found")
    func routes() {
        #expect(WallRoute(method: "GET", path: "/wall/\(Self.token)") == .page(token: Self.token))
        #expect(WallRoute(method: "HEAD", path: "/wall/\(Self.token)/events") == .events(token: Self.token))
        #expect(WallRoute(method: "GET", path: "/wall.js") == .script)
        #expect(WallRoute(method: "GET", path: "/wall.css") == .style)
        #expect(WallRoute(method: "GET", path: "/metrics") == .metrics)
        #expect(WallRoute(method: "GET", path: "/favicon.ico") == .favicon)
        for path in [
            "/", "/wall", "/wall/", "/wall/short", "/wall/\(Self.token)/", "/wall/\(Self.token)/events/",
            "/wall/\(Self.token.dropLast())+", "/wall/\(Self.token)%2F", "//wall/\(Self.token)", "/metrics/",
        ] {
            #expect(WallRoute(method: "GET", path: path) == .notFound, "\(path)")
        }
        for method in ["POST", "PUT", "DELETE", "OPTIONS", "get", "CONNECT"] {
            #expect(WallRoute(method: method, path: "/wall/\(Self.token)") == .methodNotAllowed, "\(method)")
        }
    }

    @Test("the metrics token is compared whole: a prefix, a longer text or one byte off is not it")
    func metricsTokenComparison() {
        let token = Array("a-long-random-token".utf8)
        #expect(WallServer.constantTimeEqual(token, token))
        for other in ["", "a-long-random-toke", "a-long-random-tokenx", "b-long-random-token", "a-long-random-tokeN"] {
            #expect(!WallServer.constantTimeEqual(Array(other.utf8), token), "\(other)")
        }
    }

    @Test("names are escaped; a row without amounts shows percents only")
    func escapedAndPrivate() {
        let board = WallBoard(
            week: "2026-W49",
            rows: [
                WallBoard.Row(
                    rank: 1, displayName: "<img src=x onerror=\"alert(1)\">&'", averagePercent: 80, daysMet: 2,
                    streakDays: 3, todayPercent: 40, amounts: (5600, 800, 2000)),
                WallBoard.Row(
                    rank: 2, displayName: "ben", averagePercent: 36, daysMet: 0, streakDays: 0, todayPercent: 36,
                    amounts: nil),
            ])
        let html = WallPage.document(board)
        #expect(!html.contains("<img") && !html.contains("\"alert"))
        #expect(html.contains("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39; leads"))
        #expect(html.contains("800 of 2000&nbsp;ml"))
        #expect(
            html.contains(
                "<span class=\"name\">ben</span> <meter min=\"0\" max=\"100\" value=\"36\">36 %</meter> <span class=\"figure\">36&nbsp;%</span>"
            ))
        #expect(!html.contains("<script>") && !html.contains("style="))
    }

    @Test("who leads: the first row with anything to show; no one on a week with nothing")
    func leader() {
        let nothing = WallBoard.Row(
            rank: 1, displayName: "mum", averagePercent: 0, daysMet: 0, streakDays: 0, todayPercent: 0,
            amounts: (0, 0, 2000))
        #expect(WallBoard(week: "2026-W49", rows: [nothing]).leader == nil)
        #expect(
            WallPage.fragment(WallBoard(week: "2026-W49", rows: [nothing])).contains("No one has drunk anything yet"))
        var some = nothing
        some.amounts = (15, 15, 2000)
        #expect(WallBoard(week: "2026-W49", rows: [some]).leader == "mum")
        some.amounts = nil
        #expect(WallBoard(week: "2026-W49", rows: [some]).leader == nil, "15 ml of a percent member lead no one")
    }

    @Test("a stream event is the fragment's lines as data lines, ended by an empty line")
    func event() {
        let event = String(decoding: WallStream.event("<h1>a</h1>\n<p>b</p>\n"), as: UTF8.self)
        #expect(event == "event: board\ndata: <h1>a</h1>\ndata: <p>b</p>\n\n")
    }
}
