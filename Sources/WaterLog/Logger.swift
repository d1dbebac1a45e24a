import Glibc

/// A small structured logger, passed in rather than made inside libraries (STYLE.md §8).
///
/// Lines look like `warning journal tail cut archive.path=data/users/3 bytes=17`: one line per
/// event, for stderr and journald. Values often hold what a peer sent (a status message that
/// repeats a request's field, an error's text), so no line can be forged or flooded from
/// outside: every value is escaped (``LogLine``: no raw newline or control character, quoted
/// when it has a space, a quote or `=`) and bounded, and no line is longer than
/// ``LogLine/maximumBytes`` with its newline.
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
    /// Whether each line starts with the time, `2026-11-30T21:30:00.125Z` (UTC).
    public var timestamps: Bool
    private let sink: @Sendable (String) -> Void

    /// A logger that hands each formatted line (no newline) to `sink`.
    public init(minimumLevel: Level = .info, timestamps: Bool = false, sink: @escaping @Sendable (String) -> Void) {
        self.minimumLevel = minimumLevel
        self.timestamps = timestamps
        self.sink = sink
    }

    /// Writes to standard error, one line per call, with the time at the start unless standard
    /// error is the journal (which records the time of every line itself).
    public static func standardError(minimumLevel: Level = .info) -> Logger {
        let journal = isJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) }, STDERR_FILENO)
        return Logger(minimumLevel: minimumLevel, timestamps: !journal) { line in
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// Discards everything.
    public static let silent = Logger(minimumLevel: .error) { _ in }

    public func log(_ level: Level, _ message: String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else { return }
        var line = LogLine(time: timestamps ? LogLine.now() : nil, level: level.description, message: message)
        for (key, value) in metadata { line.append(key, value) }
        sink(line.text)
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

    /// Whether `descriptor` is the journal's stream: systemd sets `JOURNAL_STREAM` to the
    /// `device:inode` of the stream it connects (systemd.exec(5)); a redirect or a terminal,
    /// or a child that inherited the variable but not the stream, has another.
    static func isJournal(_ journalStream: String?, _ descriptor: Int32) -> Bool {
        guard let journalStream else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return journalStream == "\(info.st_dev):\(info.st_ino)"
    }
}
