import Glibc
import WaterSystem

/// Starting another program from a command line: a desktop notification, a background refresh.
public enum Subprocess {
    /// Runs `path` with `arguments` (the first is its name) and waits for it; its exit status,
    /// or nil when it could not be started.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String]) -> Int32? {
        guard let pid = spawn(path, arguments, detached: false) else { return nil }
        var status: Int32 = 0
        _ = retryingInterrupts { waitpid(pid, &status, 0) }
        return status
    }

    /// Starts `path` and does not wait: in a session of its own (a shell closing or a Ctrl-C does
    /// not stop it halfway), reading and writing /dev/null.
    public static func startDetached(_ path: String, _ arguments: [String]) {
        _ = spawn(path, arguments, detached: true)
    }

    private static func spawn(_ path: String, _ arguments: [String], detached: Bool) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if detached {
            for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
                posix_spawn_file_actions_addopen(
                    &actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
            posix_spawnattr_setflags(&attributes, newSession)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, path, &actions, &attributes, &argv, environ) == 0 ? pid : nil
    }

    /// glibc's POSIX_SPAWN_SETSID (spawn.h), a macro Swift does not import.
    private static let newSession: Int16 = 0x80
}
