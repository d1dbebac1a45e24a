import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// The kitchen wall's figures and bounds from outside, against the real server: what
/// `/metrics` shows after real calls, peers without a link that try to keep the wall's slots,
/// the metrics token, and the link `wall link` prints.
@Suite("The kitchen wall: metrics and slow peers, end to end", .serialized)
struct WallBoundsTests {
    @Test(
        "/metrics after real calls: latency by method, syncs, log segments, snapshots, refused connections, deliveries; no member in it"
    )
    func metricsFamilies() throws {
        let wall = try WallUnderTest.start(options: ["--max-per-address", "4"])
        let ben = try wall.server.addedMember("ben", by: wall.mum)
        #expect(try wall.mum.run(["log", "1234"]).status == 0)
        #expect(try ben.run(["log", "321"]).status == 0)
        #expect(try ben.run(["board"]).status == 0)
        // Two connections from an address that may have two in their handshake (half of 4):
        // the third is refused; the two are closed before their handshake, as is one that
        // sends what is not a handshake.
        let address = wall.server.address
        let pending = try (0..<2).map { _ in try connect(from: "127.0.0.3", to: address) }
        let third = try connect(from: "127.0.0.3", to: address)
        #expect(ending(of: third) == .closed)
        close(third)
        for fd in pending { close(fd) }
        let garbage = try connect(from: "127.0.0.4", to: address)
        _ = write(garbage, "GET / HTTP/1.1\r\n\r\n", 18)
        #expect(ending(of: garbage) == .closed)
        close(garbage)
        // The wall's own: a ninth connection from one address while eight are open.
        let path = try wall.link()
        let streams = try (0..<8).map { _ in
            try ChildProcess(
                "/usr/bin/curl", ["-s", "-N", "--interface", "127.0.0.5", wall.base + path + "/events"],
                bytes: nil)
        }
        defer {
            for stream in streams where stream.isRunning { kill(stream.pid, SIGKILL) }
            for stream in streams { _ = stream.wait() }
        }
        for stream in streams {
            #expect(stream.readOutput(until: { $0.contains("event: board") }, seconds: 20).contains("event: board"))
        }
        #expect(try curl(["--interface", "127.0.0.5", wall.base + path]).status != 0)

        var metrics = ""
        #expect(
            waitUntil(seconds: 10) {
                metrics = (try? httpGet(wall.base + "/metrics").body) ?? ""
                return metrics.contains("water_connections_refused_total{reason=\"handshake\"} 3\n")
            }, "\(metrics)")
        for line in [
            "# TYPE water_call_duration_seconds histogram\n",
            "water_call_duration_seconds_bucket{method=\"water.v1.Tracker/LogWater\",le=\"0.0005\"} ",
            "water_call_duration_seconds_bucket{method=\"water.v1.Tracker/LogWater\",le=\"+Inf\"} 2\n",
            "water_call_duration_seconds_count{method=\"water.v1.Tracker/LogWater\"} 2\n",
            "water_call_duration_seconds_sum{method=\"water.v1.Tracker/LogWater\"} ",
            "water_call_duration_seconds_count{method=\"water.v1.Board/GetBoard\"} ",
            "# TYPE water_sync_duration_seconds histogram\n", "water_sync_duration_seconds_bucket{le=\"10.0\"} ",
            "water_sync_duration_seconds_sum ", "# TYPE water_snapshot_duration_seconds histogram\n",
            "water_snapshot_duration_seconds_bucket{le=\"+Inf\"} ", "water_snapshot_duration_seconds_count ",
            "water_log_segments ", "# TYPE water_log_segment_bytes gauge\n",
            "water_connections_refused_total{reason=\"cap\"} 0\n",
            "water_connections_refused_total{reason=\"per_address\"} 1\n",
            "water_reminders_total{channel=\"push\",outcome=\"sent\"} 0\n",
            "water_reminders_total{channel=\"push\",outcome=\"dropped\"} 0\n",
            "water_reminders_total{channel=\"mqtt\",outcome=\"failed\"} 0\n",
            "water_mqtt_messages_total{outcome=\"sent\"} 0\n", "water_mqtt_messages_total{outcome=\"failed\"} 0\n",
            "water_wall_connections_open ", "water_wall_connections_refused_total{reason=\"per_address\"} 1\n",
            "water_wall_connections_refused_total{reason=\"cap\"} 0\n",
        ] {
            #expect(metrics.contains(line), "\(line)")
        }
        // Every sync of a group that wrote is in the histogram.
        let syncs = Self.value(of: "water_commit_syncs_total", in: metrics)
        #expect(syncs > 0 && Self.value(of: "water_sync_duration_seconds_count", in: metrics) == syncs)
        #expect(Self.value(of: "water_log_segment_bytes", in: metrics) > 0)
        for secret in ["mum", "ben", "1234", "321"] { #expect(!metrics.contains(secret), "\(secret)") }
    }

    /// The value of the sample `name` (no labels) in `text`; -1 when it is not there.
    static func value(of name: String, in text: String) -> Int {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    @Test(
        "peers trickling their headers a byte at a time cannot keep the wall's 32 slots: each is closed, and a link opens the page"
    )
    func tricklingPeersLoseTheirSlots() throws {
        let wall = try WallUnderTest.start()
        let path = try wall.link()
        let address = HostPort(host: "127.0.0.1", port: wall.port)
        // Four addresses, eight each: every slot of the wall.
        let sockets = try (0..<32).map { try connect(from: "127.0.0.\(2 + $0 / 8)", to: address) }
        defer { for fd in sockets { close(fd) } }
        let request = Array("GET /wall/\(String(repeating: "A", count: 43)) HTTP/1.1\r\nHost: wall\r\nX-Slow: ".utf8)
        var open = Set(sockets.indices)
        // A byte from each every 250 ms (MHD's inactivity timeout never passes), for 30 s at most.
        for step in 0..<120 where !open.isEmpty {
            for index in open {
                var byte = step < request.count ? request[step] : UInt8(ascii: "a")
                let sent = send(sockets[index], &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                if sent < 0 || isClosedByServer(sockets[index]) { open.remove(index) }
            }
            usleep(250_000)
        }
        #expect(open.isEmpty, "\(open.count) of 32 trickling connections still open after 30 s")
        // Their slots are free again once libmicrohttpd has closed them (its threads, a moment).
        #expect(
            waitUntil(seconds: 10) {
                (try? curl(["--interface", "127.0.0.6", wall.base + path]).output.contains("<h1>Week ")) == true
            })
        let metrics = try httpGet(wall.base + "/metrics").body
        #expect(metrics.contains("water_wall_connections_refused_total{reason=\"no_link_in_time\"} 32\n"), "\(metrics)")
    }

    @Test(
        "a request without a link is answered and its connection closed, and its 404s are throttled as wrong links"
    )
    func requestsWithoutALink() throws {
        let wall = try WallUnderTest.start()
        let path = try wall.link()
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try httpGet(wall.base + "/", ["--interface", "127.0.0.3"]).status) }
        #expect(statuses == [404, 404, 404, 429, 429])
        // What a browser asks for by itself is not a guess.
        for _ in 0..<4 { #expect(try httpGet(wall.base + "/favicon.ico", ["--interface", "127.0.0.4"]).status == 404) }
        let css = try httpGet(wall.base + "/wall.css", ["--interface", "127.0.0.4"])
        #expect(css.status == 200 && css.headers.contains("Connection: close"), "\(css.headers)")
        // Two requests on one curl: each answer closes its connection, a link's page included
        // (only its live stream stays).
        let connects = { (urls: [String]) throws -> String in
            try curl(
                ["--interface", "127.0.0.4", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects} "] + urls
            ).output
        }
        let without = try connects([wall.base + "/wall.css", wall.base + "/wall.js"])
        #expect(without == "1 1 ", "\(without)")
        let with = try connects([wall.base + path, wall.base + "/wall.css"])
        #expect(with == "1 1 ", "\(with)")
    }

    @Test("--metrics-token-file: /metrics asks every peer for the token, loopback included, and counts wrong ones")
    func metricsToken() throws {
        let file = "/tmp/water-metrics-token-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let token = "a-long-random-token-for-prometheus"
        try (token + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { unlink(file) }
        let wall = try WallUnderTest.start(tls: true, at: "0.0.0.0:0", options: ["--metrics-token-file", file])
        let loopback = "https://127.0.0.1:\(wall.port)/metrics"
        let right = try httpGet(loopback, ["-k", "-H", "Authorization: Bearer \(token)"])
        #expect(right.status == 200 && right.body.contains("# TYPE water_members gauge"))
        for header in [[], ["-H", "Authorization: Bearer wrong"], ["-H", "Authorization: Bearer \(token)x"]] {
            let refused = try httpGet(loopback, ["-k", "--interface", "127.0.0.2"] + header)
            #expect(refused.status == 404 && !refused.body.contains("water_"), "\(header)")
        }
        #expect(try httpGet(loopback, ["-k", "--interface", "127.0.0.2"]).status == 429)
        let lan = try #require(
            (try? ChildProcess.run("/bin/hostname", ["-I"]))?.output.split(separator: " ").first {
                $0.contains(".") && !$0.hasPrefix("127.")
            })
        let fromLAN = try httpGet(
            "https://\(lan):\(wall.port)/metrics", ["-k", "-H", "Authorization: Bearer \(token)"])
        #expect(fromLAN.status == 200 && fromLAN.body.contains("water_wall_requests_total"))
    }

    @Test("wall link prints the wall's real address: its scheme and port from the server, the host the client uses")
    func linkAddress() throws {
        let wall = try WallUnderTest.start()
        let made = try wall.mum.json(WaterV1.CreateWallLinkResponse.self, ["wall", "link"])
        #expect(made.wallScheme == "http" && made.wallPort == UInt32(wall.port))
        let printed = try wall.mum.run(["wall", "link"])
        #expect(printed.status == 0 && printed.output.contains("open \(wall.base)/wall/"), "\(printed.output)")
        let page = printed.output.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix(wall.base) }
        #expect(page != nil)
        #expect(try curl([String(page ?? "")]).output.contains("<h1>Week "))

        let bare = try ServerProcess.fresh()
        let mum = try bare.loggedInAdmin()
        let none = try mum.json(WaterV1.CreateWallLinkResponse.self, ["wall", "link"])
        #expect(none.wallScheme == "" && none.wallPort == 0)
        let said = try mum.run(["wall", "link"])
        #expect(said.status == 0 && said.output.contains("serves no wall"), "\(said.output)")
    }
}
