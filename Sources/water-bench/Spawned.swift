import Foundation
import Glibc

/// A process the benchmark starts and stops by its pid.
final class Spawned {
    let process = Process()
    let arguments: [String]
    private(set) var firstLine = ""

    /// Starts `path` and waits (at most 60 s) for its first output line, or for `readyText`.
    init(_ path: String, _ arguments: [String], readyText: String? = nil) throws {
        self.arguments = arguments
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
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

    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        process.waitUntilExit()
    }

    /// Runs a command to completion and returns its exit status.
    static func run(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:])
        throws -> Int32
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
