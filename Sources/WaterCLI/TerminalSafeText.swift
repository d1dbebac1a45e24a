extension StringProtocol {
    /// The text with every control character (C0, DEL, C1: U+0000-U+001F, U+007F-U+009F) shown
    /// as a visible escape, `\x1b`, `\x0a`, `\x9b`: what a program prints of text it did not write
    /// (a server's message, a member's todo item, a name), so that none of it can move the
    /// cursor, clear the screen, set the title, write the clipboard (OSC 52) or start a line that
    /// looks like the program's own. Text without control characters comes back as it is.
    public var terminalSafe: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return String(self) }
        var safe = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard scalar.isControlCharacter else {
                safe.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            safe.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" : "") + hex).unicodeScalars)
        }
        return String(safe)
    }
}

extension Unicode.Scalar {
    /// C0, DEL or C1 (Unicode's general category Cc).
    var isControlCharacter: Bool { properties.generalCategory == .control }
}
