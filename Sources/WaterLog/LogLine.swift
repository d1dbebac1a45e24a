import Glibc

/// One line of the log, built so that nothing in it can forge or flood the log:
///
///     [2026-11-30T21:30:00.125Z ]LEVEL MESSAGE key=value key="a value" ...
///
/// - The message and every value are escaped: `\n`, `\r`, `\t`, `\"`, `\\`, and any other
///   control character (C0, DEL, C1) or line separator (U+2028, U+2029) as `\u{1B}`. So a line
///   is always one line, whatever a peer put in a value.
/// - A value is quoted when it is empty or holds a space, a quote, `=` or an escape; otherwise
///   it is written bare.
/// - A value is at most ``maximumValueBytes``, the whole line (with its newline) at most
///   ``maximumBytes``; what is cut says how long it was: `…(912345 bytes)`.
public struct LogLine: Sendable {
    /// The longest line, newline included (the bound: no log line over 4 KB).
    public static let maximumBytes = 4096
    /// The longest value once escaped: a long one leaves room for the fields after it.
    public static let maximumValueBytes = 1024

    public private(set) var text: String

    public init(time: String?, level: String, message: String) {
        text = (time.map { $0 + " " } ?? "") + level + " " + Self.escaped(message, limit: Self.maximumValueBytes)
    }

    /// Adds ` key=value`, escaped and bounded; past the line's bound, the line ends with a mark
    /// of how much was left out instead.
    public mutating func append(_ key: String, _ value: String) {
        guard !text.hasSuffix(Self.cutMark) else { return }
        let escapedValue = Self.escaped(value, limit: Self.maximumValueBytes)
        let plain = !value.isEmpty && escapedValue == value && !value.contains(where: { $0 == " " || $0 == "=" })
        let field = " " + Self.escaped(key, limit: 64) + "=" + (plain ? value : "\"" + escapedValue + "\"")
        // Room is kept for the sink's newline and for the mark.
        guard text.utf8.count + field.utf8.count + Self.cutMark.utf8.count + 1 <= Self.maximumBytes else {
            text += Self.cutMark
            return
        }
        text += field
    }

    /// Ends a line that had no room for all its fields.
    static let cutMark = " …(line cut at 4 KiB)"

    /// `text` escaped as the type's comment says, at most `limit` bytes (then cut at a scalar,
    /// with its length in bytes after it).
    static func escaped(_ text: String, limit: Int) -> String {
        // Nearly every value (a method, a code, an address, a refusal's message) is printable
        // ASCII with nothing to escape: it is returned as it is after one pass over its bytes.
        // The scalar-by-scalar path below costs about 100 ns a character, which made the log
        // line of a refused call most of the loop's time spent on a stranger's frame.
        if text.utf8.count <= limit, text.utf8.allSatisfy(isPlainASCII) { return text }
        var result = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars {
            let piece = escape(scalar)
            let length = piece.utf8.count
            guard bytes + length <= limit else {
                result.append(contentsOf: "…(\(text.utf8.count) bytes)".unicodeScalars)
                return String(result)
            }
            bytes += length
            result.append(contentsOf: piece.unicodeScalars)
        }
        return String(result)
    }

    /// Whether `byte` is printable ASCII that needs no escape.
    private static func isPlainASCII(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\"": return "\\\""
        case "\\": return "\\\\"
        default:
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                return "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                return String(scalar)
            }
        }
    }

    /// The time now in UTC, to the millisecond: `2026-11-30T21:30:00.125Z`.
    public static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
            + ".\(pad(Int32(time.tv_nsec / 1_000_000), 3))Z"
    }
}
