import WaterCore

extension StringProtocol {
    /// The text with every scalar ``SharedText`` refuses shown as a visible escape: control
    /// characters (C0, DEL, C1) as `\x1b`, `\x0a`, `\x9b`, and what reorders or hides text (bidi
    /// overrides and isolates, zero-width characters, U+2028/2029, tags) as `\u{202e}`. It is
    /// what a program prints of text it did not write (a server's message, a member's todo item,
    /// a name), so that none of it can move the cursor, clear the screen, set the title, write
    /// the clipboard (OSC 52), start a line that looks like the program's own, or show other
    /// text than it holds (what a server from before the rule may still send). Text without
    /// such scalars comes back as it is; a joiner inside an emoji stays.
    public var terminalSafe: String {
        let text = String(self)
        guard SharedText.firstRefused(in: text) != nil else { return text }
        let scalars = text.unicodeScalars
        var safe = String.UnicodeScalarView()
        for index in scalars.indices {
            let scalar = scalars[index]
            guard SharedText.refuses(scalars, at: index) else {
                safe.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            let escape =
                SharedText.hazard(scalar) == .control ? "\\x" + (hex.count < 2 ? "0" : "") + hex : "\\u{\(hex)}"
            safe.append(contentsOf: escape.unicodeScalars)
        }
        return String(safe)
    }
}
