import Foundation
import Glibc
import WaterSync
import WaterTestSupport
import WaterTransport

/// The directory of this executable, where the other executables are built too.
let productsDirectory = URL(
    fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
)
.deletingLastPathComponent().path

/// A process the benchmark starts and stops by its pid.
final class Spawned {
    let process = Process()
    let arguments: [String]
    private(set) var firstLine = ""
    /// Bytes the process has written to its standard error (what journald would keep of a
    /// server's log), read and dropped by a thread of the benchmark's.
    private let loggedBytes = Locked(0)

    /// Starts `path` and waits (at most 60 s) for its first output line, or for `readyText`.
    init(_ path: String, _ arguments: [String], readyText: String? = nil, environment: [String: String] = [:]) throws {
        self.arguments = arguments
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let errorsHandle = errors.fileHandleForReading
        Thread { [loggedBytes] in
            while case let chunk = errorsHandle.availableData, !chunk.isEmpty {
                loggedBytes.withLock { $0 += chunk.count }
            }
        }.start()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let readyText, text.contains(readyText) { break }
            if readyText == nil, text.contains("\n") { break }
        }
        firstLine = String(text.split(separator: "\n").first ?? "")
        // Keep draining output so the child never blocks on a full pipe.
        let handle = output.fileHandleForReading
        Thread { while !handle.availableData.isEmpty {} }.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// Where a water-server listens, as its first line says (`listening on 127.0.0.1:41233`).
    func listeningAddress() throws -> HostPort {
        try require(
            HostPort(parsing: firstLine.replacingOccurrences(of: "listening on ", with: ""), defaultPort: 0),
            "the listening address")
    }

    /// How many bytes the process has written to its standard error so far.
    var standardErrorBytes: Int { loggedBytes.withLock { $0 } }

    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        process.waitUntilExit()
    }

    /// Runs a command to completion and returns its exit status. (posix_spawn and waitpid:
    /// Foundation's `Process.waitUntilExit` polls, which added about 50 ms to every timed run.)
    static func run(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:])
        throws -> Int32
    {
        try ChildProcess.run(path, arguments, environment: environment, input: input).status
    }
}
