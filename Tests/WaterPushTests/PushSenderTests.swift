import CCurl
import Foundation
import Testing
import WaterCore
import WaterLog
import WaterSync
import WaterTestSupport

@testable import WaterPush

/// The push sender against a real HTTP endpoint speaking ntfy's publish API
/// (scripts/lib/ntfy_endpoint.py) on 127.0.0.1, through libcurl.
@Suite("Push sender")
struct PushSenderTests {
    /// The endpoint, and the requests it logged (one JSON object a line).
    final class Endpoint {
        let process: ChildProcess
        let port: Int
        let log = NSTemporaryDirectory() + "ntfy-\(UUID()).log"

        init() throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("scripts/lib/ntfy_endpoint.py").path
            process = try ChildProcess("/usr/bin/python3", [script, log])
            let first = process.readOutput(until: { $0.contains("\n") }, seconds: 30)
            port = try #require(Int(first.trimmingCharacters(in: .whitespacesAndNewlines)), "\(process.errorTextSoFar)")
        }

        var topics: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.compactMap { $0["topic"] as? String }
        }

        deinit {
            kill(process.pid, SIGTERM)
            _ = process.wait()
            unlink(log)
        }
    }

    /// A logger whose lines the test reads.
    final class Lines: Sendable {
        let lines = Locked<[String]>([])
        var logger: Logger { Logger(minimumLevel: .info) { [lines] line in lines.withLock { $0.append(line) } } }
        var text: String { lines.withLock { $0.joined(separator: "\n") } }
    }

    static func reminder(to url: String, token: String = "tk_secret") -> Reminder {
        var account = Account(
            id: 7, username: "mum", displayName: "Mum", role: .member, timeZone: .utc, passwordHash: "",
            createdAtUnixMilliseconds: 0)
        account.reminders.push = .init(url: url, token: token)
        return Reminder(
            memberID: 7, username: "mum", displayName: "Mum", recipient: account, kind: "water",
            title: "A glass of water?", text: "you have 0 of 2000 ml", date: LocalDate(year: 2026, month: 11, day: 30)!)
    }

    @Test(
        "addresses on this machine or the local network are private; the internet's are not",
        arguments: [
            ("127.0.0.1", true), ("127.8.9.10", true), ("0.0.0.0", true), ("10.1.2.3", true), ("172.16.0.1", true),
            ("172.31.255.255", true), ("172.32.0.1", false), ("192.168.1.20", true), ("100.64.0.1", true),
            ("100.127.255.255", true), ("100.128.0.1", false), ("169.254.169.254", true), ("224.0.0.1", true),
            ("255.255.255.255", true), ("8.8.8.8", false), ("93.184.216.34", false), ("::", true), ("::1", true),
            ("fe80::1", true), ("fd12:3456::1", true), ("fc00::1", true), ("ff02::1", true),
            ("::ffff:127.0.0.1", true), ("::ffff:192.168.0.1", true), ("::ffff:8.8.8.8", false),
            ("64:ff9b::a00:1", true), ("2002:c0a8:101::1", true), ("2606:4700::1111", false),
            ("2a00:1450:4001::200e", false),
        ])
    func addressClasses(_ text: String, _ isPrivate: Bool) {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            if text.contains(":") {
                let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                #expect(inet_pton(AF_INET6, text, &v6.pointee.sin6_addr) == 1)
            } else {
                let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                v4.pointee.sin_family = sa_family_t(AF_INET)
                #expect(inet_pton(AF_INET, text, &v4.pointee.sin_addr) == 1)
            }
        }
        let answer = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { water_curl_address_is_private($0) }
        }
        #expect((answer == 1) == isPrivate, "\(text)")
    }

    @Test(
        "an endpoint on loopback, by address or by a name that resolves there, is refused: counted, never tried again, logged without the URL's path or token"
    )
    func loopbackRefused() throws {
        let endpoint = try Endpoint()
        let lines = Lines()
        let sender = try #require(PushSender(logger: lines.logger))
        defer { sender.stop() }
        sender.send([Self.reminder(to: "http://127.0.0.1:\(endpoint.port)/secret-topic")])
        // `localhost` passes every check of the URL's text; its address is what is refused.
        sender.send([Self.reminder(to: "https://localhost:\(endpoint.port)/other-topic")])
        #expect(waitUntil(seconds: 30) { sender.counts.refused == 2 }, "\(sender.counts) \(lines.text)")
        #expect(sender.counts == PushSender.Counts(refused: 2))
        #expect(endpoint.topics.isEmpty)
        #expect(lines.text.contains("push reminder refused") && lines.text.contains("member=mum"), "\(lines.text)")
        #expect(lines.text.contains("127.0.0.1") || lines.text.contains("::1"))
        for secret in ["secret-topic", "other-topic", "tk_secret", "localhost"] {
            #expect(!lines.text.contains(secret))
        }
    }

    @Test("with private endpoints allowed (serve --push-allow-private), the same endpoint gets the reminder")
    func loopbackAllowed() throws {
        let endpoint = try Endpoint()
        let lines = Lines()
        let sender = try #require(PushSender(logger: lines.logger, allowPrivate: true))
        defer { sender.stop() }
        sender.send([Self.reminder(to: "http://127.0.0.1:\(endpoint.port)/mum")])
        #expect(waitUntil(seconds: 30) { sender.counts.sent == 1 }, "\(sender.counts) \(lines.text)")
        #expect(endpoint.topics == ["mum"])
    }

    @Test("stop ends the sender with a transfer hanging: it is abandoned, said in the log, and nothing is sent after")
    func stopWithHangingTransfer() throws {
        let endpoint = try Endpoint()
        let lines = Lines()
        let sender = try #require(PushSender(logger: lines.logger, allowPrivate: true))
        sender.send([Self.reminder(to: "http://127.0.0.1:\(endpoint.port)/hang")])
        #expect(waitUntil(seconds: 30) { endpoint.topics == ["hang"] })
        sender.stop()
        #expect(lines.text.contains("push sender stopped") && lines.text.contains("abandoned=1"), "\(lines.text)")
        sender.send([Self.reminder(to: "http://127.0.0.1:\(endpoint.port)/after")])
        sender.stop()
        #expect(endpoint.topics == ["hang"] && sender.counts == PushSender.Counts())
    }
}
