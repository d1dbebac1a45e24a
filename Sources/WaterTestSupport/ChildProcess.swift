import CLinux
import Dispatch
import Glibc
import WaterSync
import WaterSystem

/// A process a test starts (posix_spawn) and waits for (waitpid), with its standard streams on
/// pipes. Foundation's `Process` is not used: with many processes started at once from
/// parallel tests, its `waitUntilExit()` was seen to wait forever for a child that had exited.
/// Every pipe end is close-on-exec, so a process one test starts never holds another test's
/// pipe open.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let output: Int32
    private let errors = Locked<[UInt8]>([])
    private let errorsDone = DispatchSemaphore(value: 0)
    private var status: Int32?

    /// Starts `path` with `arguments` (and `environment` added to this process's), writes
    /// `input` to its standard input and closes it; its standard error is collected in the
    /// background (``errorText``).
    public convenience init(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
    )
        throws
    {
        try self.init(path, arguments, environment: environment, bytes: input.map { Array($0.utf8) })
    }

    /// The same, with standard input given as bytes.
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:], bytes input: [UInt8]?)
        throws
    {
        func pipe() throws -> (read: Int32, write: Int32) {
            var ends: [Int32] = [0, 0]
            guard CLinux_pipe_cloexec(&ends) == 0 else { throw ChildProcessError("pipe: errno \(errno)") }
            return (ends[0], ends[1])
        }
        let (stdin, stdout, stderr) = (try pipe(), try pipe(), try pipe())
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
        var merged: [String: String] = [:]
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                merged[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
        merged.merge(environment) { $1 }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with no signal blocked: the test runner's threads block nearly all of
        // them, which would pass through exec, so a SIGTERM to stop a server would stay pending
        // and tmux's server would never see its panes' processes end (SIGCHLD).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        close(stdin.read)
        close(stdout.write)
        close(stderr.write)
        guard spawned == 0 else {
            [stdin.write, stdout.read, stderr.read].forEach { close($0) }
            throw ChildProcessError("posix_spawn \(path): \(String(cString: strerror(spawned)))")
        }
        pid = child
        output = stdout.read
        if let bytes = input {
            var done = 0
            while done < bytes.count {
                let (written, _) = retryingInterrupts {
                    bytes.withUnsafeBytes { write(stdin.write, $0.baseAddress! + done, bytes.count - done) }
                }
                if written <= 0 { break }
                done += written
            }
        }
        close(stdin.write)
        let (errors, errorsDone, descriptor) = (self.errors, self.errorsDone, stderr.read)
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let (count, _) = retryingInterrupts { read(descriptor, &buffer, buffer.count) }
                guard count > 0 else { break }
                errors.withLock { $0 += buffer[0..<count] }
            }
            close(descriptor)
            errorsDone.signal()
        }
    }

    deinit {
        close(output)
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
    }

    /// Reads standard output until `done` says so, the stream ends, or `seconds` pass.
    public func readOutput(until done: (String) -> Bool = { _ in false }, seconds: Int = 60) -> String {
        String(
            decoding: readOutputBytes(until: { done(String(decoding: $0, as: UTF8.self)) }, seconds: seconds),
            as: UTF8.self)
    }

    /// ``readOutput(until:seconds:)`` as bytes.
    public func readOutputBytes(until done: ([UInt8]) -> Bool = { _ in false }, seconds: Int = 60) -> [UInt8] {
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let deadline = time(nil) + seconds
        while time(nil) < deadline, !done(text) {
            guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { break }
            guard poller.revents != 0 else { continue }
            let (count, _) = retryingInterrupts { read(output, &buffer, buffer.count) }
            guard count > 0 else { break }
            text += buffer[0..<count]
        }
        return text
    }

    /// What the process has written to standard error so far (it may still be running).
    public var errorTextSoFar: String {
        String(decoding: errors.withLock { $0 }, as: UTF8.self)
    }

    /// Everything written to standard error, once the process has ended.
    public var errorText: String {
        errorsDone.wait()
        errorsDone.signal()
        return String(decoding: errors.withLock { $0 }, as: UTF8.self)
    }

    /// Waits for the process to end: its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        _ = retryingInterrupts { waitpid(pid, &raw, 0) }
        let ended = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        status = ended
        return ended
    }

    /// Whether the process is still running (it is reaped when it is not).
    public var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
        status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        return false
    }

    /// Runs a command to its end: exit status, standard output and standard error. One still
    /// running after `seconds` is killed (status 128 + 9), so a command that should have ended
    /// fails its test instead of hanging it.
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], input: String? = nil,
        seconds: Int = 600
    )
        throws -> (status: Int32, output: String, error: String)
    {
        let child = try ChildProcess(path, arguments, environment: environment, input: input)
        let deadline = time(nil) + seconds
        let output = child.readOutput(seconds: seconds)
        // Its output ended because it is exiting: a process's descriptors close before it can be
        // reaped, so "still running" here was a race that killed children on their way out (exit
        // 137 for a grep that had printed everything). Wait for the exit; kill only at the deadline.
        while child.isRunning, time(nil) < deadline { usleep(1000) }
        if child.isRunning { kill(child.pid, SIGKILL) }
        let status = child.wait()
        return (status, output, child.errorText)
    }
}

/// A process that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
