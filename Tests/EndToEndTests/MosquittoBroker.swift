import Foundation
import Glibc
import Testing
import WaterTestSupport
import WaterTransport

/// Debian's `mosquitto` on a free loopback port, with a configuration written to a temporary
/// directory; stopped by process id. What it holds is read with `mosquitto_sub`.
final class MosquittoBroker {
    private(set) var port: UInt16
    let directory: String
    private var process: ChildProcess?
    /// What `mosquitto_sub` needs besides the address (a TLS listener's CA).
    var readerOptions: [String] = []

    /// - Parameter users: username and password; with any, anonymous clients are refused.
    init(users: [(String, String)] = [], extraConfiguration: [String] = []) throws {
        var template = Array("/tmp/water-mqtt-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        // A port the kernel just handed out and took back: free unless another test takes it
        // meanwhile, in which case the broker says so and another is tried (below).
        port = try Self.freePort()
        // Run as root, mosquitto reads its files as the mosquitto user it becomes.
        chmod(directory, 0o755)
        var lines = ["persistence false", "log_dest stderr"] + extraConfiguration
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            for (index, (user, password)) in users.enumerated() {
                let made = try ChildProcess.run(
                    "/usr/bin/mosquitto_passwd",
                    (index == 0 ? ["-c"] : []) + ["-b", "\(directory)/passwords", user, password])
                try #require(made.status == 0, "mosquitto_passwd: \(made.error)")
            }
            chmod("\(directory)/passwords", 0o644)
            lines += ["allow_anonymous false", "password_file \(directory)/passwords"]
        }
        for attempt in 1...5 {
            let listener = "listener \(port) 127.0.0.1\n"
            try (listener + lines.joined(separator: "\n") + "\n").write(
                toFile: "\(directory)/mosquitto.conf", atomically: true, encoding: .utf8)
            let broker = try ChildProcess("/usr/sbin/mosquitto", ["-c", "\(directory)/mosquitto.conf"])
            process = broker
            _ = waitUntil(seconds: 30) { broker.errorTextSoFar.contains("running") || !broker.isRunning }
            if broker.isRunning { return }
            // Another test took the port between the probe and the broker's bind: another port.
            try #require(
                attempt < 5 && broker.errorText.contains("in use"), "mosquitto did not start: \(broker.errorText)")
            port = try Self.freePort()
        }
    }

    private static func freePort() throws -> UInt16 {
        let probe = try Socket.listen(on: HostPort(host: "127.0.0.1", port: 0))
        defer { probe.close() }
        return try #require(probe.localAddress?.port)
    }

    var address: String { "127.0.0.1:\(port)" }

    /// What the running broker has logged so far (to standard error; `log_type all` logs every packet).
    var logSoFar: String { process?.errorTextSoFar ?? "" }

    /// Starts the broker (again, on the same port) and waits until it listens.
    func start() throws {
        let broker = try ChildProcess("/usr/sbin/mosquitto", ["-c", "\(directory)/mosquitto.conf"])
        process = broker
        let running = waitUntil(seconds: 30) { broker.errorTextSoFar.contains("running") || !broker.isRunning }
        try #require(running && broker.isRunning, "mosquitto did not start: \(broker.errorTextSoFar)")
    }

    /// Stops it (SIGKILL, by pid: a broker spawned from a test's thread inherits that thread's
    /// blocked SIGTERM, and mosquitto never unblocks it). It keeps nothing: retained messages go
    /// with it.
    func stop() {
        guard let process else { return }
        if process.isRunning { kill(process.pid, SIGKILL) }
        process.wait()
        self.process = nil
    }

    /// `mosquitto_sub` started now: reads up to `count` messages on `topics` (retained ones first)
    /// for at most `seconds`. ``Subscription/messages()`` waits for it. With `timed`, each
    /// message's "topic" is instead the time it arrived, in seconds since 1970 (`-F '%U %p'`).
    func subscribe(
        _ topics: [String], count: Int, seconds: Int = 20, login: (String, String)? = nil, timed: Bool = false
    ) throws -> Subscription {
        // Not `-W`: its SIGALRM stays blocked in a process spawned from a test's thread, which
        // blocks nearly every signal. The subscription is bounded here instead.
        var arguments =
            ["-h", "127.0.0.1", "-p", "\(port)", "-C", "\(count)"] + (timed ? ["-F", "%U %p"] : ["-v"]) + readerOptions
        if let (user, password) = login { arguments += ["-u", user, "-P", password] }
        for topic in topics { arguments += ["-t", topic] }
        return Subscription(
            process: try ChildProcess("/usr/bin/mosquitto_sub", arguments), count: count,
            deadline: ContinuousClock.now + .seconds(seconds))
    }

    /// What the broker holds retained on `topic` now (nil: nothing within a second or two; the
    /// output is read to whole seconds).
    func retained(_ topic: String, login: (String, String)? = nil) throws -> String? {
        try subscribe([topic], count: 1, seconds: 2, login: login).messages().first?.payload
    }

    /// Waits (bounded) until the retained payload on `topic` satisfies `condition`; the last one read.
    func waitForRetained(_ topic: String, seconds: Int = 30, _ condition: (String) -> Bool) throws -> String? {
        var last: String?
        _ = try waitUntil(seconds: seconds, every: .milliseconds(100)) {
            last = try retained(topic)
            return last.map(condition) ?? false
        }
        return last
    }

    deinit {
        stop()
        _ = system("rm -rf '\(directory)'")
    }

    /// One running `mosquitto_sub -v`, read as it prints until it has `count` messages or its
    /// deadline passes, then killed by pid.
    final class Subscription {
        let process: ChildProcess
        let count: Int
        let deadline: ContinuousClock.Instant
        private var text = ""

        init(process: ChildProcess, count: Int, deadline: ContinuousClock.Instant) {
            self.process = process
            self.count = count
            self.deadline = deadline
        }

        /// Whole lines only: a message is printed with its newline, and one read half-way (a
        /// large output comes in several reads) must not count, or it is cut when the reader stops.
        var lines: Int { Self.lines(text) }

        private static func lines(_ text: String) -> Int { text.utf8.count { $0 == UInt8(ascii: "\n") } }

        /// Waits (until the deadline at most) for `count` messages in all; whether they came.
        func waitFor(_ count: Int) -> Bool {
            let left = deadline - ContinuousClock.now
            if !(lines >= count) && left > .zero {
                text += process.readOutput(
                    until: { Self.lines(self.text + $0) >= count },
                    seconds: max(Int(left.components.seconds), 1))
            }
            return lines >= count
        }

        /// Every message it printed by its count or deadline: topic and payload (`(null)` is an
        /// empty one).
        func messages() -> [(topic: String, payload: String)] {
            _ = waitFor(count)
            stop()
            return received
        }

        /// Stops the subscriber now, whatever it has read.
        func stop() {
            if process.isRunning { kill(process.pid, SIGKILL) }
            process.wait()
        }

        /// The messages read so far, the subscriber still running.
        var received: [(topic: String, payload: String)] {
            text.split(separator: "\n").map { line in
                let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        }
    }
}

/// A JSON object's fields, from a payload.
func jsonObject(_ payload: String?) -> [String: Any] {
    guard let payload, let data = payload.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return [:] }
    return object
}
