import Foundation
import Glibc
import Testing
import WaterClient
import WaterCodec
import WaterProtocol
import WaterTLS
import WaterTestSupport
import WaterTransport

/// The directory the package's executables were built into (beside the test bundle).
let productsDirectory = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
)
.deletingLastPathComponent()

let adminPassword = "mum-password-1"

/// Runs a built executable to completion (killed after `seconds`).
func run(
    _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
    seconds: Int = 600
) throws -> (status: Int32, output: String, error: String) {
    try ChildProcess.run(
        productsDirectory.appendingPathComponent(executable).path, arguments, environment: environment,
        input: input, seconds: seconds)
}

/// A real `water-server serve` on 127.0.0.1, port 0, over a temporary data directory. It is
/// stopped by process id (SIGTERM) in ``stop()``, or killed when the test forgets.
final class ServerProcess {
    let dataDirectory: String
    /// Whether it serves TLS (with the self-signed certificate `init` made) or plaintext.
    let tls: Bool
    private let process: ChildProcess
    private(set) var address = HostPort(host: "127.0.0.1", port: 0)
    /// Whether this process removes the temporary directory when it goes; a restart passes
    /// that on to the process that replaces it.
    private var ownsDirectory = false

    /// Creates a data directory with the admin `mum` (in `zone`) and starts serving it.
    /// Serves plaintext on 127.0.0.1 unless `tls`: then TLS with the certificate init made.
    static func fresh(
        _ options: [String] = [], tls: Bool = false, environment: [String: String] = [:], zone: String = "UTC"
    ) throws -> ServerProcess {
        var template = Array("/tmp/water-e2e-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) } + "/data"
        let created = try run(
            "water-server",
            [
                "init", "--data", directory, "--admin", "mum", "--password-stdin",
                "--password-strength", "minimum", "--time-zone", zone,
            ],
            input: adminPassword + "\n")
        #expect(created.status == 0, "water-server init: \(created.error)")
        let server = try ServerProcess(dataDirectory: directory, options: options, tls: tls, environment: environment)
        server.ownsDirectory = true
        return server
    }

    init(dataDirectory: String, options: [String] = [], tls: Bool = false, environment: [String: String] = [:]) throws {
        self.dataDirectory = dataDirectory
        self.tls = tls
        process = try ChildProcess(
            productsDirectory.appendingPathComponent("water-server").path,
            [
                "serve", "--data", dataDirectory, "--password-strength", "minimum",
            ] + (options.contains("--time-zone") ? [] : ["--time-zone", "UTC"])
                + (options.contains("--listen") ? [] : ["--listen", "127.0.0.1:0"]) + (tls ? [] : ["--plaintext"])
                + options, environment: environment)
        // Wait (bounded) for the one line the server prints when it is ready.
        let text = process.readOutput(until: { $0.contains("\n") }, seconds: 60)
        guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on "),
            let parsed = HostPort(parsing: String(line.dropFirst("listening on ".count)), defaultPort: 0)
        else {
            kill(process.pid, SIGKILL)
            throw WaterError(.unavailable, "water-server did not start: \(text)")
        }
        address = parsed
    }

    /// How a library client trusts this server: the certificate's fingerprint, or plaintext.
    var security: ClientConfiguration.Security {
        guard tls else { return .plaintext }
        return .pinned(try? Fingerprint(certificateAt: "\(dataDirectory)/tls/certificate.pem"))
    }

    /// The server's process id.
    var pid: Int32 { process.pid }

    /// SIGTERM, then waits for a clean exit.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { kill(process.pid, SIGTERM) }
        return process.wait()
    }

    /// Ends it with SIGKILL, as a power cut would: nothing is snapshotted on the way out, so
    /// the log still holds everything written since each snapshot (a clean stop folds it all
    /// in). Returns the status it ended with (128 + 9).
    @discardableResult
    func killAbruptly() -> Int32 {
        if process.isRunning { kill(process.pid, SIGKILL) }
        return process.wait()
    }

    /// What the server logged (read once it has stopped).
    var log: String { process.errorText }

    /// What the running server has logged so far.
    var logSoFar: String { process.errorTextSoFar }

    /// Waits (at most `seconds`) until the running server has logged `text`; whether it has.
    func waitForLog(_ text: String, seconds: Int = 30) -> Bool {
        waitUntil(seconds: seconds) { process.errorTextSoFar.contains(text) }
    }

    /// Waits (at most `seconds`) until the running server has logged `text` on `count` lines;
    /// whether it has.
    func waitForLog(_ text: String, lines count: Int, seconds: Int = 30) -> Bool {
        waitUntil(seconds: seconds) {
            process.errorTextSoFar.split(separator: "\n").count { $0.contains(text) } >= count
        }
    }

    /// What the running server last wrote to `DATA/status` (`key value` lines; at start, every
    /// 5 seconds and after a compaction), by key; empty before the first write.
    var statusFile: [String: String] {
        let text = (try? String(contentsOfFile: "\(dataDirectory)/status", encoding: .utf8)) ?? ""
        return Dictionary(
            text.split(separator: "\n").map { line in
                let parts = line.split(separator: " ", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        ) { $1 }
    }

    /// Restarts on the same data directory, after `whileStopped` (which may write it, as an
    /// older server would have).
    func restarted(_ options: [String] = [], whileStopped: () throws -> Void = {}) throws -> ServerProcess {
        #expect(stop() == 0)
        try whileStopped()
        let next = try ServerProcess(dataDirectory: dataDirectory, options: options, tls: tls)
        next.ownsDirectory = ownsDirectory
        ownsDirectory = false
        return next
    }

    /// Kills with SIGKILL (as a power cut or the OOM killer would end it), then starts again on
    /// the same data directory.
    func killedAndRestarted(_ options: [String] = []) throws -> ServerProcess {
        if process.isRunning { kill(process.pid, SIGKILL) }
        process.wait()
        let next = try ServerProcess(dataDirectory: dataDirectory, options: options, tls: tls)
        next.ownsDirectory = ownsDirectory
        ownsDirectory = false
        return next
    }

    /// A library client, logged in as `username`.
    func client(_ username: String, password: String) throws -> WaterClient {
        let client = try WaterClient(configuration: ClientConfiguration(server: address, security: security))
        try client.login(username: username, password: password)
        return client
    }

    /// `mum`, the admin ``fresh(_:tls:environment:)`` made, logged in at a command line of her own.
    func loggedInAdmin() throws -> CommandLineUser {
        let mum = cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        return mum
    }

    /// `name`, added by `admin` (password `NAME-password-1`) and logged in at a command line
    /// of their own.
    func addedMember(_ name: String, by admin: CommandLineUser) throws -> CommandLineUser {
        let password = "\(name)-password-1\n"
        #expect(try admin.run(["member", "add", name, "--password-stdin"], input: password).status == 0)
        let person = cli(name)
        #expect(try person.run(["login", name, "--password-stdin"], input: password).status == 0)
        return person
    }

    /// The `water-client` command line of one person, with their own config and state
    /// directories: another test's person of the same name on a port used again never shares
    /// their status cache, outbox or the todo list their terminal showed.
    func cli(_ home: String) -> CommandLineUser {
        let base = URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().path
        return CommandLineUser(
            environment: [
                "WATER_SERVER": address.description,
                "XDG_CONFIG_HOME": "\(base)/\(home)", "XDG_STATE_HOME": "\(base)/\(home)-state",
                "NO_COLOR": "1",
            ].merging(tls ? [:] : ["WATER_PLAINTEXT": "1"]) { $1 })
    }

    deinit {
        if process.isRunning {
            kill(process.pid, SIGKILL)
            process.wait()
        }
        if ownsDirectory {
            _ = system("rm -rf '\(URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().path)'")
        }
    }
}

/// One person at a terminal running `water-client`.
struct CommandLineUser {
    let environment: [String: String]

    /// A person with configuration and state directories of their own and no WATER_SERVER
    /// (`--server`, or the last login, decides), with `environment` added.
    static func alone(_ environment: [String: String] = [:]) -> CommandLineUser {
        let home = NSTemporaryDirectory() + "water-person-\(UUID())"
        return CommandLineUser(
            environment: ["XDG_CONFIG_HOME": "\(home)/config", "XDG_STATE_HOME": "\(home)/state", "NO_COLOR": "1"]
                .merging(environment) { $1 })
    }

    @discardableResult
    func run(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String, error: String) {
        try EndToEndTests.run("water-client", arguments, input: input, environment: environment)
    }

    /// This person logged in as `username`.
    func loggedIn(_ username: String, _ password: String) throws -> CommandLineUser {
        #expect(try run(["login", username, "--password-stdin"], input: password + "\n").status == 0)
        return self
    }

    /// Runs with --json and decodes the reply.
    func json<Message: ProtoMessage>(_ type: Message.Type, _ arguments: [String]) throws -> Message {
        let result = try run(["--json"] + arguments)
        #expect(result.status == 0, "water-client \(arguments): \(result.error)")
        do {
            return try JSONDecoder().decode(Message.self, from: Data(result.output.utf8))
        } catch {
            // Say what was printed instead: a decoding error alone names neither.
            Issue.record(
                "water-client --json \(arguments) printed \(result.output.debugDescription), error output \(result.error.debugDescription)"
            )
            throw error
        }
    }
}

/// Runs `body` with the port of a TCP listener on 127.0.0.1 that is not a water server: each
/// connection is handed to `answer` on the listener's own thread, then closed.
func withFakeServer(_ answer: @escaping @Sendable (Int32) -> Void, body: (UInt16) throws -> Void) throws {
    let listener = try Socket.listen(on: HostPort(host: "127.0.0.1", port: 0))
    let stopped = DispatchSemaphore(value: 0)
    defer {
        // shutdown wakes the thread's accept; only once it has returned is the number closed
        // (a closed number may be another test's socket by then).
        shutdown(listener.descriptor, Int32(SHUT_RDWR))
        stopped.wait()
        listener.close()
    }
    let port = try #require(listener.localAddress?.port)
    // Socket.listen makes an event loop's non-blocking socket; this thread simply waits.
    _ = fcntl(listener.descriptor, F_SETFL, fcntl(listener.descriptor, F_GETFL) & ~O_NONBLOCK)
    let answering = Thread {
        defer { stopped.signal() }
        while true {  // until the listener is shut down, at the end of `body`
            let fd = accept(listener.descriptor, nil, nil)
            guard fd >= 0 else { return }
            answer(fd)
            close(fd)
        }
    }
    answering.start()
    try body(port)
}

extension DispatchGroup {
    /// Runs `body` on a thread of its own with a plaintext client logged in to `address` as
    /// `name`, inside the group: a writer of a load test. A connection or login that fails (the
    /// server killed meanwhile) runs nothing, and an error thrown ends the writer.
    func writer(
        _ address: HostPort, _ name: String, _ password: String,
        _ body: @escaping @Sendable (WaterClient) throws -> Void
    ) {
        enter()
        Thread {
            defer { self.leave() }
            guard
                let client = try? WaterClient(
                    configuration: ClientConfiguration(server: address, security: .plaintext)),
                (try? client.login(username: name, password: password)) != nil
            else { return }
            try? body(client)
        }.start()
    }
}
