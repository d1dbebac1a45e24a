import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterTestSupport
import WaterTransport

/// The server's CPU time so far (user + system), from /proc/PID/stat, in clock ticks.
private func cpuTicks(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    // After "pid (comm)": state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
}

/// Sets the soft descriptor limit of the running process `pid` (the hard one stays, so the
/// test can raise it again), with util-linux's
/// `prlimit` (Glibc's module does not export prlimit(2)).
private func setDescriptorLimit(_ pid: Int32, _ limit: Int) throws -> Bool {
    try ChildProcess.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(limit):"]).status == 0
}

@Suite("Descriptors exhausted, end to end", .serialized)
struct DescriptorExhaustionTests {
    @Test("EMFILE: the listener backs off (no spinning, one log line), and serves again once descriptors free up")
    func emfile() throws {
        let server = try ServerProcess.fresh(["--handshake-deadline", "120", "--max-per-address", "200"])
        let pid = server.pid
        // A member logs in first: the session is written while descriptors are plentiful.
        let mum = try server.client("mum", password: adminPassword)
        let inUse = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        // Room for a few connections more, then EMFILE.
        #expect(try setDescriptorLimit(pid, inUse + 4))
        // Connections that finish their handshake (so none is a pending one) until one is left
        // in the kernel's queue because accept failed, which the server logs.
        var open: [Int32] = []
        defer { open.forEach { close($0) } }
        var stuck: Int32?
        for _ in 0..<64 where stuck == nil {
            let fd = try connect(from: "127.0.0.2", to: server.address, timeoutSeconds: 1)
            _ = handshakeFrame().withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var answered = false
            _ = waitUntil {
                answered = isAnswered(fd)
                return answered || server.logSoFar.contains("accept failed")
            }
            if answered { open.append(fd) } else { stuck = fd }
        }
        let waiting = try #require(stuck, "accept never failed")
        defer { close(waiting) }
        #expect(server.logSoFar.contains("Too many open files") || server.logSoFar.contains("EMFILE"))
        // Over the next 2 s the server tries again every 100 ms: a small share of one core, where
        // a level-triggered listener would spin on it all the time.
        let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
        let before = try #require(cpuTicks(pid))
        usleep(2_000_000)
        let used = try #require(cpuTicks(pid)) - before
        print("server CPU while out of descriptors: \(used * 1000 / ticks) ms in 2000 ms")
        #expect(used * 4 < ticks, "\(used) ticks of CPU in 2 s (\(ticks) a second)")
        let failures = server.logSoFar.split(separator: "\n").filter { $0.contains("accept failed") }
        #expect(failures.count <= 2, "\(failures.count) lines about accept")
        // Descriptors free up: the waiting connection is accepted and answered.
        for fd in open.prefix(3) { close(fd) }
        open.removeFirst(3)
        #expect(waitUntil { isAnswered(waiting) }, "the connection in the queue is served")
        _ = try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: 250))
        // Room again to shut down cleanly (the last snapshots open files).
        #expect(try setDescriptorLimit(pid, 4096))
        #expect(server.stop() == 0)
    }
}

/// Whether a reply has arrived on `fd` (asked without waiting).
private func isAnswered(_ fd: Int32) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 64)
    return recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT | MSG_PEEK)) > 0
}
