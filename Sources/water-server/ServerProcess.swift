import Glibc
import WaterCLI
import WaterCore
import WaterHome
import WaterProtocol
import WaterServer
import WaterStore
import WaterTransport

extension CommandTable where Context == Arguments {
    /// Runs the command `words` (the command line without the program's name) asks for, and
    /// returns how the process ends (`serve` never returns): a failure is reported on standard
    /// error first, as one JSON object with --json.
    func run(_ words: some Sequence<String>) -> ExitCode {
        let words = Array(words)
        var arguments = Arguments(words)
        // Every command but serve takes --json; with it, an error is one JSON object on stderr too.
        let json = words.contains("--json")
        do {
            let command = try commandToRun(&arguments, protocolVersion: WireProtocol.version)
            try command.run(&arguments)
            return .ok
        } catch let reported as ReportedFailure {
            return reported.exitCode
        } catch {
            return ErrorJSON(serverError: error).print(program: "water-server", json: json)
        }
    }
}

extension ErrorJSON {
    /// How a failure ends `water-server`: a busy, missing or empty data directory or a busy port
    /// is 69 (systemd tries again: the disk may be mounted by then), a domain rule 65.
    init(serverError error: any Error) {
        switch error {
        case let error as MQTTError:
            // A broker setting libmosquitto refuses (a CA file that is no PEM): the command line's.
            self.init(code: "USAGE", exitCode: .usage, message: "--mqtt: \(error)")
        case let error as ArchiveError where error.code == .locked || error.code == .notADataDirectory:
            self.init(code: "UNAVAILABLE", exitCode: .unavailable, message: error.message)
        case let error as SocketError:
            // A hint only where it is the likely cause: a name that does not resolve, or an
            // address this machine does not have, is not a busy port.
            let hint =
                switch error.errno {
                case EADDRINUSE: "; is another server using that port?"
                case EADDRNOTAVAIL: "; is that address one of this machine's? (0.0.0.0 listens on all of them)"
                default: ""
                }
            self.init(code: "UNAVAILABLE", exitCode: .unavailable, message: "\(error)\(hint)")
        case let error as DomainError:
            let status = WaterError(error)
            self.init(
                code: status.code.description, exitCode: .dataError, message: status.message,
                violations: status.violations.map { Violation(field: $0.field, description: $0.description) })
        default:
            self.init(unknown: error)
        }
    }
}
