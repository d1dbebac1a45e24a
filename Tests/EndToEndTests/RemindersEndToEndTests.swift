import Foundation
import Testing
import WaterProtocol
import WaterTestSupport

/// Issue 34: the server's own scheduler reminds members at the right minute of their day, through
/// a real Mosquitto broker and a real HTTP endpoint speaking ntfy's publish API (started here:
/// ntfy itself is not packaged in Debian). The members are set up on a server whose clock reads
/// 09:10 (no reminder of theirs is due before 10:00); then it is restarted with its clock 15 s
/// before 10:00, so the 10:00 reminders come without a test sleeping for minutes, however long
/// the setup took.
@Suite("Reminders, end to end")
struct RemindersEndToEndTests {
    /// Monday 2026-11-30 10:00:00 UTC (every member's zone is UTC).
    static let ten: Int64 = 1_796_040_000_000 - 2 * 3_600_000

    /// The ntfy-speaking endpoint, and the requests it logged (one JSON object a line).
    final class Endpoint {
        let process: ChildProcess
        let port: Int
        let log: String

        init(token: String) throws {
            log = NSTemporaryDirectory() + "ntfy-\(UUID()).log"
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/lib/ntfy_endpoint.py").path
            process = try ChildProcess("/usr/bin/python3", [script, log, "--token", token])
            let first = process.readOutput(until: { $0.contains("\n") }, seconds: 30)
            port = try #require(Int(first.trimmingCharacters(in: .whitespacesAndNewlines)), "\(process.errorTextSoFar)")
        }

        var requests: [[String: Any]] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map {
                jsonObject(String($0))
            }
        }

        func requests(to topic: String) -> [[String: Any]] { requests.filter { $0["topic"] as? String == topic } }

        deinit {
            kill(process.pid, SIGTERM)
            _ = process.wait()
            unlink(log)
        }
    }

    @Test(
        "at 10:00 the members behind get one reminder each by their channels; met, excused and quiet ones none; a child's go to a guardian; a refused token is not retried; a hanging endpoint slows nobody"
    )
    func tenOClock() throws {
        let endpoint = try Endpoint(token: "tk_family")
        let broker = try MosquittoBroker()
        // The endpoint is on loopback, which only --push-allow-private lets pushes reach.
        var server = try ServerProcess.fresh([
            "--clock", "\(Self.ten - 50 * 60_000)", "--mqtt", broker.address, "--push-allow-private",
        ])
        let base = "http://127.0.0.1:\(endpoint.port)"
        let tokens = NSTemporaryDirectory() + "tokens-\(UUID())"
        try "tk_family\n".write(toFile: tokens + "-good", atomically: true, encoding: .utf8)
        try "tk_wrong\n".write(toFile: tokens + "-bad", atomically: true, encoding: .utf8)
        defer { for suffix in ["-good", "-bad"] { unlink(tokens + suffix) } }

        let mum = try server.loggedInAdmin()
        let set = try mum.run(
            [
                "remind", "--every", "60", "--hours", "08:00-22:00", "--push", "\(base)/mum", "--push-token-file",
                tokens + "-good",
                "--mqtt", "on",
            ])
        #expect(set.status == 0 && !set.output.contains("tk_family"), "\(set)")
        let dad = try server.addedMember("dad", by: mum)
        #expect(try dad.run(["remind", "--push", "\(base)/dad", "--push-token-file", tokens + "-good"]).status == 0)
        #expect(try mum.run(["member", "add", "kim", "--child"]).status == 0)
        #expect(try mum.run(["member", "guardian", "kim", "add", "dad"]).status == 0)
        #expect(try dad.run(["remind", "--every", "120", "--for", "kim"]).status == 0)
        let gus = try server.addedMember("gus", by: mum)
        #expect(try gus.run(["remind", "--push", "\(base)/gus", "--push-token-file", tokens + "-bad"]).status == 0)
        let eve = try server.addedMember("eve", by: mum)
        #expect(try eve.run(["remind", "--push", "\(base)/eve"]).status == 0)
        #expect(try eve.run(["excuse", "2026-11-30", "--reason", "sick"]).status == 0)
        let met = try server.addedMember("met", by: mum)
        #expect(try met.run(["remind", "--push", "\(base)/met"]).status == 0)
        #expect(try met.run(["log", "2000"]).status == 0)
        let hal = try server.addedMember("hal", by: mum)
        #expect(try hal.run(["remind", "--push", "\(base)/hang"]).status == 0)
        let flo = try server.addedMember("flo", by: mum)
        #expect(try flo.run(["remind", "--push", "\(base)/fail", "--push-token-file", tokens + "-good"]).status == 0)
        let quiet = try server.addedMember("ivy", by: mum)
        #expect(try quiet.run(["remind", "--hours", "12:00-20:00", "--push", "\(base)/ivy"]).status == 0)
        let shown = try mum.run(["remind"])
        #expect(shown.output.contains("water every 60 minutes, 08:00-22:00") && shown.output.contains("(with a token)"))
        #expect(!shown.output.contains("tk_family"))

        // The setup took what it took; now the clock is put 15 s before 10:00 (the same port, so
        // every member's session and saved address still work).
        let reminders = try broker.subscribe(["water/+/reminder"], count: 1, seconds: 90)
        server = try server.restarted([
            "--clock", "\(Self.ten - 15_000)", "--mqtt", broker.address, "--listen", "\(server.address)",
            "--push-allow-private",
        ])
        #expect(
            waitUntil(seconds: 120, every: .milliseconds(200)) {
                endpoint.requests(to: "mum").count == 1 && endpoint.requests(to: "dad").count == 2
                    && endpoint.requests(to: "hang").count == 1 && endpoint.requests(to: "gus").count == 1
            }, "\(endpoint.requests)")
        // While the hanging endpoint holds its transfer, the server answers as ever.
        #expect(try mum.run(["today"]).status == 0)

        let toMum = try #require(endpoint.requests(to: "mum").first)
        #expect(toMum["title"] as? String == "A glass of water?")
        #expect(toMum["authorization"] as? String == "Bearer tk_family" && toMum["tags"] as? String == "droplet")
        #expect((toMum["message"] as? String)?.contains("0 of 2000 ml by 10:00") == true, "\(toMum)")
        let toDad = endpoint.requests(to: "dad").compactMap { $0["title"] as? String }.sorted()
        #expect(toDad == ["A glass of water?", "Water for a child"], "\(toDad)")

        let message = try #require(reminders.messages().first)
        #expect(message.topic == "water/mum/reminder")
        let payload = jsonObject(message.payload)
        #expect(payload["event_type"] as? String == "water" && payload["member"] as? String == "mum")
        #expect(payload["to_go_ml"] as? Int == 2000)

        // The server says it reminded her today; a refused token was not asked again (a 403 is
        // final), and nobody met, excused or in quiet hours heard anything.
        let status = try mum.json(WaterV1.GetRemindersResponse.self, ["remind"])
        #expect(status.lastReminded == "2026-11-30" && status.reminders?.pushToken == "")
        // A 500 is tried twice more (1 s, then 4 s later); by then the 403 has had its chance to
        // be asked again, and was not.
        #expect(waitUntil(seconds: 30, every: .milliseconds(200)) { endpoint.requests(to: "fail").count == 3 })
        #expect(endpoint.requests(to: "gus").count == 1)
        #expect(endpoint.requests(to: "eve").isEmpty && endpoint.requests(to: "met").isEmpty)
        #expect(endpoint.requests(to: "ivy").isEmpty)
        // The orderly stop stops the push sender too, within its bound, whatever hangs.
        #expect(server.stop() == 0)
        #expect(server.log.contains("push sender stopped"), "\(server.log)")
    }

    @Test(
        "without --push-allow-private a push to this machine is refused after the name is resolved: nothing reaches it, and the log names neither path nor token"
    )
    func privateEndpointRefused() throws {
        let endpoint = try Endpoint(token: "tk_family")
        var server = try ServerProcess.fresh(["--clock", "\(Self.ten - 50 * 60_000)"])
        let tokens = NSTemporaryDirectory() + "tokens-\(UUID())"
        try "tk_family\n".write(toFile: tokens, atomically: true, encoding: .utf8)
        defer { unlink(tokens) }
        let mum = try server.loggedInAdmin()
        // `localhost` is a name: only its address, once resolved, says where it goes.
        for (user, url) in [
            (mum, "http://127.0.0.1:\(endpoint.port)/mum-topic"),
            (try server.addedMember("dad", by: mum), "https://localhost:\(endpoint.port)/dad-topic"),
        ] {
            #expect(try user.run(["remind", "--push", url, "--push-token-file", tokens]).status == 0)
        }
        server = try server.restarted(["--clock", "\(Self.ten - 15_000)", "--listen", "\(server.address)"])
        #expect(
            server.waitForLog("push reminder refused", lines: 2, seconds: 120),
            "\(server.logSoFar)")
        #expect(server.stop() == 0)
        #expect(endpoint.requests.isEmpty, "\(endpoint.requests)")
        for secret in ["mum-topic", "dad-topic", "tk_family"] { #expect(!server.log.contains(secret)) }
        #expect(server.log.contains("refused=2") && server.log.contains("push sender stopped"), "\(server.log)")
    }
}
