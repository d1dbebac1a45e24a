import Foundation
import WaterTransport

/// The two servers a benchmark starts (each on a free loopback port, stopped by pid), and what
/// is read of them from outside: their memory, and the allocation shim's count.
extension ServerBenchmark {
    /// The release server on `data`, on a free loopback port: plaintext unless told otherwise.
    static func startWater(
        _ data: String, plaintext: Bool = true, environment: [String: String] = [:], options: [String] = []
    ) throws -> (Spawned, HostPort) {
        let server = try Spawned(
            productsDirectory + "/water-server",
            [
                "serve", "--data", data, "--listen", "127.0.0.1:0", "--password-strength", "minimum",
                "--max-connections", "1024", "--max-per-address", "1024", "--time-zone", "UTC",
            ] + (plaintext ? ["--plaintext"] : []) + options, environment: environment)
        let address = try server.listeningAddress()
        return (server, address)
    }

    /// redis-server with `appendfsync always` on a free loopback port, its files in `directory`,
    /// with the log-a-drink script loaded (it reads the AOF back, script and all).
    static func startRedis(_ directory: String, environment: [String: String] = [:]) throws -> Spawned {
        try Spawned(
            "/usr/bin/redis-server",
            [
                "--port", "\(Self.freePort())", "--bind", "127.0.0.1", "--dir", directory, "--save", "",
                "--appendonly", "yes", "--appendfsync", "always",
            ], readyText: "Ready to accept connections", environment: environment)
    }

    static func freePort() -> UInt16 {
        (try? Socket.listen(on: HostPort(host: "127.0.0.1", port: 0))).map { socket in
            defer { socket.close() }
            return socket.localAddress?.port ?? 6399
        } ?? 6399
    }

    /// A memory figure of /proc/PID/status (`VmRSS:`, `RssAnon:`), in MiB.
    static func statusMiB(_ field: String, of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return 0 }
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    /// The count the allocation shim keeps in `path`.
    static func allocationCount(_ path: String) -> UInt64 {
        guard let bytes = FileManager.default.contents(atPath: path), bytes.count >= 8 else { return 0 }
        return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
}
