import Glibc

/// A small structured logger, passed in rather than made inside libraries (STYLE.md §8).
///
/// Lines look like `warning journal tail cut archive.path=data/users/3 bytes=17`: one line per
/// event, for stderr and journald.
public struct Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    public var minimumLevel: Level
    private let sink: @Sendable (String) -> Void

    /// A logger that hands each formatted line to `sink`.
    public init(minimumLevel: Level = .info, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// Writes to standard error, one line per call.
    public static func standardError(minimumLevel: Level = .info) -> Logger {
        Logger(minimumLevel: minimumLevel) { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// Discards everything.
    public static let silent = Logger(minimumLevel: .error) { _ in }

    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else { return }
        let fields = metadata.map { " \($0.key)=\(Self.quoted($0.value))" }.joined()
        sink("\(level) \(message)\(fields)")
    }

    public func debug(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.debug, message, metadata)
    }
    public func info(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.info, message, metadata)
    }
    public func warning(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.warning, message, metadata)
    }
    public func error(_ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.error, message, metadata)
    }

    private static func quoted(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            ? "\"\(value.replacingAll("\"", with: "\\\""))\"" : value
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        reduce(into: "") { $0 += $1 == target ? replacement : String($1) }
    }
}
