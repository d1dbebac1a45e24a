import Glibc
import WaterCLI
import WaterClient
import WaterProtocol

extension ErrorJSON {
    /// How a failure of any kind ends `water-client`: its message, status and exit code.
    init(_ error: any Error) {
        if let unreadable = error as? UnreadableFile {
            self.init(code: "NO_INPUT", exitCode: .noInput, message: unreadable.description)
            return
        }
        guard let error = error as? WaterError else {
            self.init(unknown: error)
            return
        }
        self.init(
            code: error.code.description, exitCode: error.exitStatus, message: error.message,
            violations: error.violations.map { Violation(field: $0.field, description: $0.description) })
    }
}

/// A file named on the command line that cannot be read (EX_NOINPUT, 66), in the system's words.
struct UnreadableFile: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "cannot read \(path.terminalSafe): \(reason)" }

    /// Why `path` cannot be read: what open(2) or read(2) said (a folder opens, then its read fails).
    static func reason(_ path: String) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) < 0 ? String(cString: strerror(errno)) : "it could not be read"
    }
}

extension WaterError {
    /// How each status code of the server ends the process (DESIGN.md section 8).
    var exitStatus: ExitCode {
        switch code {
        // ABORTED: what the command named has changed since it was shown (`todo done 2`).
        case .invalidArgument, .outOfRange, .alreadyExists, .notFound, .aborted: .dataError
        case .unavailable, .deadlineExceeded, .resourceExhausted: .unavailable
        case .permissionDenied, .unauthenticated: .notAllowed
        default: .failure
        }
    }
}
