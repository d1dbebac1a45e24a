import WaterCLI
import WaterClient
import WaterProtocol

extension ErrorJSON {
    /// How a failure of any kind ends `water-client`: its message, status and exit code.
    init(_ error: any Error) {
        guard let error = error as? WaterError else {
            self.init(unknown: error)
            return
        }
        self.init(
            code: error.code.description, exitCode: error.exitStatus, message: error.message,
            violations: error.violations.map { Violation(field: $0.field, description: $0.description) })
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
