import FoundationEssentials
import Glibc

/// `--json` as both programs print it: one object per reply, keys sorted, `/` not escaped, and
/// no raw control character: the encoder escapes C0 (as JSON requires), and DEL and C1, which
/// JSON allows raw, are escaped here too (`\u009b`), so JSON on a terminal cannot drive it either.
public enum JSONOutput {
    /// `pretty` indents it, for a file people open (an export).
    public static func encode<Value: Encodable>(_ value: Value, pretty: Bool = false) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The keys of JSON we write are snake case (`amount_ml`), as the protos' are.
        encoder.keyEncodingStrategy = .convertToSnakeCase
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        return (try? encoder.encode(value)).map { escapingDELAndC1(String(decoding: $0, as: UTF8.self)) } ?? "{}"
    }

    /// Outside strings JSON has no such character, so each one found is inside a string, where
    /// `\uXXXX` means exactly the same: nothing a reader decodes changes.
    static func escapingDELAndC1(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else { return json }
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) {
                escaped.append(contentsOf: "\\u00\(String(scalar.value, radix: 16))".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

/// A failure as `--json` reports it: one object on standard error, so a script reads the same
/// status code, message and field violations the server sent (or `USAGE` for a command line
/// that does not parse, `FAILURE` for a local one), and the process still exits with `exit_code`.
public struct ErrorJSON: Encodable, Sendable {
    public struct Violation: Encodable, Sendable {
        public var field: String
        public var description: String

        public init(field: String, description: String) {
            self.field = field
            self.description = description
        }
    }

    public var code: String
    public var exitCode: Int32
    public var message: String
    public var violations: [Violation]

    public init(code: String, exitCode: ExitCode, message: String, violations: [Violation] = []) {
        self.code = code
        self.exitCode = exitCode.rawValue
        self.message = message
        self.violations = violations
    }

    /// An error no more is known of than both programs know: a usage error (64), else a plain
    /// failure (1) in the error's own words. Each program names its own errors first.
    public init(unknown error: any Error) {
        if let usage = error as? UsageError {
            self.init(code: "USAGE", exitCode: .usage, message: usage.message)
        } else {
            self.init(code: "FAILURE", exitCode: .failure, message: "\(error)")
        }
    }

    /// Writes the error: as JSON with `json`, else as `program: message` (and, for a usage
    /// error, where the help is); returns the exit code.
    public func print(program: String, json: Bool) -> ExitCode {
        if json {
            Terminal.error(JSONOutput.encode(self))
        } else {
            // A server's message may hold what an older server stored (a member's todo item).
            Terminal.error("\(program): \(message.terminalSafe)" + (code == "USAGE" ? "; see \(program) --help" : ""))
        }
        return ExitCode(rawValue: exitCode) ?? .failure
    }
}
