import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTLS
import WaterTestSupport

/// The kitchen wall (`serve --wall`) from outside: the real server on 127.0.0.1, curl as the
/// browser. Each refusal the README lists is asked for here.
@Suite("The kitchen wall, end to end", .serialized)
struct WallTests {
    typealias Wall = WallUnderTest

    private func wall(tls: Bool = false, at address: String = "127.0.0.1:0") throws -> Wall {
        try Wall.start(tls: tls, at: address)
    }

    private func link(_ wall: Wall) throws -> String { try wall.link() }

    private func get(_ url: String, _ options: [String] = []) throws -> (status: Int, headers: String, body: String) {
        try httpGet(url, options)
    }

    @Test(
        "a link opens the week's board as no one's board shows it: a hidden member absent, a percent member's millilitres never sent"
    )
    func pageIsTheBoard() throws {
        let wall = try wall()
        let ben = try wall.server.addedMember("ben", by: wall.mum)
        let kid = try wall.server.addedMember("kid", by: wall.mum)
        #expect(try wall.mum.run(["log", "1000"]).status == 0)
        #expect(try ben.run(["log", "730"]).status == 0)
        #expect(try ben.run(["privacy", "percent"]).status == 0)
        #expect(try kid.run(["log", "1500"]).status == 0)
        #expect(try kid.run(["privacy", "hidden"]).status == 0)
        let page = try get(wall.base + (try link(wall)))
        #expect(page.status == 200)
        let board = try #require(try wall.mum.json(WaterV1.GetBoardResponse.self, ["board"]).board)
        #expect(board.rows.map(\.username) == ["mum", "ben"])
        for row in board.rows {
            #expect(
                page.body.contains(
                    "<td class=\"rank\">\(row.rank)</td><td class=\"name\">\(row.displayName)</td>"),
                "row \(row.username)")
            #expect(page.body.contains("value=\"\(row.averagePercent)\">\(row.averagePercent) %</meter>"))
        }
        #expect(page.body.contains("mum leads"))
        #expect(page.body.contains("1000 of 2000&nbsp;ml"))
        // ben's 730 ml (36 %) are nowhere, nor is the hidden kid.
        #expect(page.body.contains("36 %"))
        #expect(!page.body.contains("730"))
        #expect(!page.body.contains("kid"))
        #expect(!page.body.contains("1500"))
    }

    @Test(
        "in headless Chromium: the rows are the board's, a percent member's millilitres are nowhere in the document, the script opens the live stream under the CSP"
    )
    func inChromium() throws {
        let wall = try wall()
        let ben = try wall.server.addedMember("ben", by: wall.mum)
        #expect(try wall.mum.run(["log", "1000"]).status == 0)
        #expect(try ben.run(["log", "730"]).status == 0)
        #expect(try ben.run(["privacy", "percent"]).status == 0)
        let path = try link(wall)
        let browser = try ChildProcess.run(
            "/usr/bin/chromium",
            ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--dump-dom", wall.base + path],
            seconds: 120)
        #expect(browser.status == 0)
        let dom = browser.output
        let board = try #require(try wall.mum.json(WaterV1.GetBoardResponse.self, ["board"]).board)
        #expect(board.rows.count == 2)
        for row in board.rows {
            #expect(dom.contains("<td class=\"rank\">\(row.rank)</td><td class=\"name\">\(row.displayName)</td>"))
            #expect(dom.contains("<td class=\"percent\">\(row.averagePercent)&nbsp;%</td>"))
        }
        #expect(!dom.contains("730"))
        // The page's own script ran (a CSP that refused it, or its stream, would leave none).
        #expect(
            waitUntil(seconds: 10) {
                ((try? get(wall.base + "/metrics").body) ?? "").contains("water_wall_streams_total 1\n")
            })
    }

    @Test(
        "in headless Chromium, never reloaded: a drink logged at the command line appears on the page through its stream"
    )
    func liveInChromium() throws {
        let wall = try wall()
        #expect(try wall.mum.run(["log", "500"]).status == 0)
        let path = try link(wall)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Python/wall_browser.py")
        // The page's text (innerText) has no-break spaces where the HTML has &nbsp;.
        let after = "50\u{A0}% · 1000 of 2000\u{A0}ml"
        let browser = try ChildProcess(
            "/usr/bin/python3", [script.path, wall.base + path, "live ·", after], bytes: nil)
        defer {
            if browser.isRunning { kill(browser.pid, SIGTERM) }
            _ = browser.wait()
        }
        var seen = browser.readOutput(until: { $0.contains("\n") }, seconds: 90)
        #expect(seen == "seen live ·\n", "\(seen)")
        #expect(try wall.mum.run(["log", "500"]).status == 0)
        seen += browser.readOutput(until: { $0.filter { $0 == "\n" }.count >= 2 }, seconds: 60)
        #expect(seen.hasSuffix("seen \(after)\n"), "\(seen)")
        #expect(browser.wait() == 0)
    }

    @Test("without a valid link every path is 404 and tells nothing; only GET; headers on every answer; no cookie")
    func refusals() throws {
        let wall = try wall()
        #expect(try wall.mum.run(["log", "500"]).status == 0)
        let path = try link(wall)
        let token = String(path.dropFirst("/wall/".count))
        // The same bytes spelled with the last character's spare bits set: not the link.
        let last = token.last!
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let respelled = String(token.dropLast()) + String(alphabet[alphabet.firstIndex(of: last)! + 1])
        // Each from an address of its own: every 404 counts as a wrong link (past three, 429).
        for (index, wrong) in [
            "/", "/wall", "/wall/", "/metrics/", "/wall/" + String(repeating: "A", count: 43), "/wall/\(respelled)",
            path + "/other", path + "x", "/wall/../wall.js",
        ].enumerated() {
            let answer = try get(wall.base + wrong, ["--path-as-is", "--interface", "127.0.0.\(20 + index)"])
            #expect(answer.status == 404, "\(wrong)")
            #expect(!answer.body.contains("mum") && !answer.body.contains("500"), "\(wrong)")
            #expect(answer.headers.contains("Referrer-Policy: no-referrer"), "\(wrong)")
        }
        let posted = try get(wall.base + path, ["-X", "POST", "--data", "x=1"])
        #expect(posted.status == 405)
        #expect(posted.headers.contains("Allow: GET, HEAD"))
        #expect(try get(wall.base + path, ["-X", "DELETE"]).status == 405)
        // Headers past the bound (8 KiB of request line and headers) are refused by MHD.
        let long = try get(wall.base + path, ["-H", "X-Filler: " + String(repeating: "a", count: 9000)])
        #expect(long.status >= 400 && long.status < 500 && !long.body.contains("mum"), "\(long.status)")
        let longPath = try get(wall.base + "/wall/" + String(repeating: "a", count: 9000))
        #expect(longPath.status >= 400 && longPath.status < 500)

        let page = try get(wall.base + path)
        #expect(page.status == 200)
        for header in [
            "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'",
            "Referrer-Policy: no-referrer", "X-Content-Type-Options: nosniff", "X-Frame-Options: DENY",
        ] {
            #expect(page.headers.contains(header), "\(header)")
        }
        #expect(!page.headers.lowercased().contains("set-cookie"))
        // No inline script or style: the page names its two files, which are served to anyone.
        #expect(page.body.contains("<script src=\"/wall.js\" defer></script>"))
        #expect(!page.body.contains("<script>") && !page.body.contains("<style") && !page.body.contains("style="))
        let script = try get(wall.base + "/wall.js")
        #expect(script.status == 200 && script.headers.contains("Content-Type: text/javascript"))
        #expect(script.body.contains("new EventSource(") && !script.body.contains("mum"))
        #expect(try get(wall.base + "/wall.css").headers.contains("Content-Type: text/css"))

        // Revoked: 404 at once.
        let links = try wall.mum.json(WaterV1.ListWallLinksResponse.self, ["wall", "ls"]).links
        #expect(links.map(\.label) == ["kitchen"] && links.map(\.madeBy) == ["mum"])
        #expect(try wall.mum.run(["wall", "revoke", links[0].id]).status == 0)
        #expect(try get(wall.base + path).status == 404)
        #expect(try wall.mum.run(["wall", "revoke", links[0].id]).status != 0)
        let badLabel = try wall.mum.run(["wall", "link", "--label", "two\nlines"])
        #expect(badLabel.status == 65 && badLabel.error.contains("label"), "\(badLabel)")
    }

    @Test("a member who is not an admin cannot make, list or revoke links")
    func adminsOnly() throws {
        let wall = try wall()
        let ben = try wall.server.addedMember("ben", by: wall.mum)
        for arguments in [["wall", "link"], ["wall", "ls"], ["wall", "revoke", "0011223344556677"]] {
            let result = try ben.run(arguments)
            #expect(result.status == 77, "\(arguments): \(result.error)")
        }
    }

    @Test("wrong links are slowed like wrong passwords: past three from an address, it waits (429)")
    func guessingIsThrottled() throws {
        let wall = try wall()
        let path = try link(wall)
        var statuses: [Int] = []
        for attempt in 0..<5 {
            statuses.append(try get(wall.base + "/wall/" + String(repeating: "B", count: 42) + "\(attempt)").status)
        }
        #expect(statuses == [404, 404, 404, 429, 429])
        // The address waits for everything, the right link included, as a login does.
        #expect(try get(wall.base + path).status == 429)
    }

    @Test(
        "live: an open page's stream gets the board after a drink logged at the command line, and ends when its link is revoked"
    )
    func liveStream() throws {
        let wall = try wall()
        #expect(try wall.mum.run(["log", "500"]).status == 0)
        let path = try link(wall)
        let stream = try ChildProcess("/usr/bin/curl", ["-s", "-N", wall.base + path + "/events"], bytes: nil)
        defer {
            if stream.isRunning { kill(stream.pid, SIGKILL) }
            _ = stream.wait()
        }
        var seen = stream.readOutput(until: { $0.contains("</ul>\n\n") }, seconds: 20)
        #expect(seen.hasPrefix("event: board\ndata: <h1>Week "))
        #expect(seen.contains("value=\"25\">25 %</meter>"))
        #expect(try wall.mum.run(["log", "500"]).status == 0)
        seen += stream.readOutput(until: { $0.contains("value=\"50\">50 %</meter>") }, seconds: 20)
        #expect(seen.contains("data: <li><span class=\"name\">mum</span> <meter min=\"0\" max=\"100\" value=\"50\">"))
        let id = try wall.mum.json(WaterV1.ListWallLinksResponse.self, ["wall", "ls"]).links[0].id
        #expect(try wall.mum.run(["wall", "revoke", id]).status == 0)
        // The stream notices within a second.
        #expect(waitUntil(seconds: 10) { !stream.isRunning })

        // A server stopping with a live stream open ends it and exits cleanly.
        let path2 = try link(wall)
        let open = try ChildProcess("/usr/bin/curl", ["-s", "-N", wall.base + path2 + "/events"], bytes: nil)
        defer {
            if open.isRunning { kill(open.pid, SIGKILL) }
            _ = open.wait()
        }
        #expect(open.readOutput(until: { $0.contains("</ul>\n\n") }, seconds: 20).contains("event: board"))
        #expect(wall.server.stop() == 0)
        #expect(waitUntil(seconds: 10) { !open.isRunning })
    }

    /// Live streams of `url`, one from each of `addresses`, each past its first board; killed
    /// by ``close(_:)``.
    private func openStreams(_ url: String, from addresses: [String]) throws -> [ChildProcess] {
        try addresses.map { address in
            let stream = try ChildProcess("/usr/bin/curl", ["-s", "-N", "--interface", address, url], bytes: nil)
            #expect(stream.readOutput(until: { $0.contains("event: board") }, seconds: 20).contains("event: board"))
            return stream
        }
    }

    private func close(_ streams: [ChildProcess]) {
        for stream in streams where stream.isRunning { kill(stream.pid, SIGKILL) }
        for stream in streams { _ = stream.wait() }
    }

    @Test("open page connections are bounded per address (8): the ninth is refused while eight streams are open")
    func connectionsPerAddress() throws {
        let wall = try wall()
        let path = try link(wall)
        let streams = try openStreams(wall.base + path + "/events", from: Array(repeating: "127.0.0.1", count: 8))
        defer { close(streams) }
        let ninth = try curl([wall.base + path])
        #expect(ninth.status != 0 && !ninth.output.contains("mum"), "\(ninth)")
        close([streams[0]])
        #expect(waitUntil(seconds: 20) { (try? curl([wall.base + path]).status) == 0 })
    }

    @Test("open page connections are bounded in all (32): from five addresses, the thirty-third is refused")
    func connectionsInAll() throws {
        let wall = try wall()
        let path = try link(wall)
        // Every 127.x address is this machine's: four of them, eight streams each.
        let streams = try openStreams(
            wall.base + path + "/events", from: (0..<32).map { "127.0.0.\(2 + $0 / 8)" })
        defer { close(streams) }
        let refused = try curl(["--interface", "127.0.0.9", wall.base + path])
        #expect(refused.status != 0 && !refused.output.contains("<h1>"), "\(refused)")
    }

    @Test("/metrics: the server's figures in Prometheus's format, to loopback only, with no member's data")
    func metrics() throws {
        let wall = try wall(tls: true, at: "0.0.0.0:0")
        #expect(try wall.mum.run(["log", "1234"]).status == 0)
        let port = wall.base.split(separator: ":").last!
        let path = try link(wall)
        #expect(try curl(["-k", "https://127.0.0.1:\(port)\(path)"]).status == 0)
        // A refused call is counted by its code.
        #expect(try wall.mum.run(["wall", "revoke", "0000000000000000"]).status != 0)
        let metrics = try get("https://127.0.0.1:\(port)/metrics", ["-k"])
        #expect(metrics.status == 200 && metrics.headers.contains("Content-Type: text/plain; version=0.0.4"))
        for line in [
            "# TYPE water_connections_open gauge", "water_members 1\n", "# TYPE water_commit_groups_total counter",
            "water_memory_private_bytes ", "water_wall_requests_total{code=\"200\"} 1\n", "water_wall_streams_open 0\n",
            "water_calls_total{method=\"water.v1.Tracker/LogWater\",code=\"OK\"} 1\n",
            "water_calls_total{method=\"water.v1.Board/CreateWallLink\",code=\"OK\"} 1\n",
            "water_calls_total{method=\"water.v1.Board/RevokeWallLink\",code=\"NOT_FOUND\"} 1\n",
        ] {
            #expect(metrics.body.contains(line), "\(line)")
        }
        #expect(!metrics.body.contains("mum") && !metrics.body.contains("1234"))
        // Every figure the sample dashboard draws is one the server gives.
        let dashboard = try String(contentsOfFile: "\(repositoryRoot)/deploy/grafana-water.json", encoding: .utf8)
        // A histogram's samples (`_bucket`, `_sum`, `_count`) are of the one metric its TYPE names.
        let drawn = Set(
            dashboard.matches(of: /water_[a-z_]+/).map { String($0.output).replacing(/_(bucket|sum|count)$/, with: "") }
        ).subtracting(["water_server"])
        #expect(drawn.count >= 10)
        for name in drawn { #expect(metrics.body.contains("# TYPE \(name) "), "\(name)") }
        // From this machine's address on the LAN, /metrics is not there (and the page still is).
        let lan = try #require(Self.lanAddress())
        let fromLAN = try get("https://\(lan):\(port)/metrics", ["-k"])
        #expect(fromLAN.status == 404 && !fromLAN.body.contains("water_"), "\(fromLAN.status)")
        #expect(try get("https://\(lan):\(port)\(path)", ["-k"]).status == 200)
    }

    /// An IPv4 address of this machine that is not loopback.
    private static func lanAddress() -> String? {
        let result = try? ChildProcess.run("/bin/hostname", ["-I"])
        return result?.output.split(separator: " ").first { $0.contains(".") && !$0.hasPrefix("127.") }.map(String.init)
    }

    @Test("over TLS the wall serves the server's own certificate; plaintext --wall is refused off loopback")
    func tls() throws {
        let wall = try wall(tls: true)
        let path = try link(wall)
        #expect(wall.base.hasPrefix("https://127.0.0.1:"))
        let port = wall.base.split(separator: ":").last!
        // Checked against the certificate init made (its name is water-server).
        let checked = try curl([
            "--cacert", "\(wall.server.dataDirectory)/tls/certificate.pem", "--resolve",
            "water-server:\(port):127.0.0.1", "https://water-server:\(port)\(path)",
        ])
        #expect(checked.status == 0 && checked.output.contains("<h1>Week "), "\(checked.error)")
        #expect(try curl(["http://127.0.0.1:\(port)\(path)"]).output.contains("<h1>") == false)

        let refused = try run(
            "water-server",
            ["serve", "--data", wall.server.dataDirectory, "--plaintext", "--wall", "0.0.0.0:0"])
        #expect(refused.status == 64 && refused.error.contains("loopback"), "\(refused.error)")
    }
}
