import Glibc

/// Writing to the terminal, reading passwords, and whether to use colour.
public enum Terminal {
    /// Writes `text` and a newline to standard output in one call.
    public static func print(_ text: String) {
        write(STDOUT_FILENO, text + "\n")
    }

    /// Writes one line to standard error.
    public static func error(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    public static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if count <= 0 { return }
            done += count
        }
    }

    /// Colour only on a terminal, and never with NO_COLOR set (https://no-color.org).
    public static var usesColour: Bool {
        isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil
    }

    /// How many columns the terminal on standard output has; nil when it is not a terminal.
    public static var columns: Int? {
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0
        else { return nil }
        return Int(size.ws_col)
    }

    /// One line from standard input without its newline, or nil at end of input.
    public static func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Asks for a password without echoing it (from /dev/tty when there is one).
    public static func readPassword(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return readLine() }
        defer { close(tty) }
        write(tty, prompt)
        var original = termios()
        tcgetattr(tty, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer {
            tcsetattr(tty, TCSAFLUSH, &original)
            write(tty, "\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Asks a yes-or-no question on the terminal; nil when the run is not interactive
    /// (standard input is not a terminal: a script, a pipe, `--password-stdin`), which then
    /// must not wait for an answer nobody will type.
    public static func confirm(_ question: String) -> Bool? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        write(tty, question)
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        let answer = String(decoding: bytes, as: UTF8.self).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// The password for a command: the first line of standard input with `--password-stdin`,
    /// else a hidden prompt (twice when `confirm`, which must match). Nil when none was given.
    /// - Throws: ``UsageError`` when the two typed differ (not "no password given").
    public static func password(fromStandardInput: Bool, prompt: String, confirm: Bool = false) throws(UsageError)
        -> String?
    {
        if fromStandardInput { return readLine() }
        guard let first = readPassword(prompt: prompt) else { return nil }
        if confirm, readPassword(prompt: "again: ") != first {
            throw UsageError("the two passwords typed differ; nothing was changed (type the same one twice)")
        }
        return first
    }
}
