import Foundation
import Testing

@testable import WaterCLI

/// Issue 18, item 6: whatever a server sends, nothing printed of it drives the terminal.
@Suite("Terminal-safe text")
struct TerminalSafeTextTests {
    @Test(
        "shows every control character as a visible \\xHH escape, and nothing else changes",
        arguments: [
            ("buy filters", "buy filters"),
            ("Wäsche 👨‍👩‍👧‍👦 水", "Wäsche 👨‍👩‍👧‍👦 水"),
            ("\u{1B}[2J\u{1B}[H", "\\x1b[2J\\x1b[H"),
            ("\u{1B}]52;c;ZXZpbA==\u{7}milk", "\\x1b]52;c;ZXZpbA==\\x07milk"),
            ("milk\n 2. [x] fake", "milk\\x0a 2. [x] fake"),
            ("tab\there\r", "tab\\x09here\\x0d"),
            ("\u{0}\u{7F}\u{85}\u{9B}31m", "\\x00\\x7f\\x85\\x9b31m"),
        ])
    func neutralises(text: String, shown: String) {
        #expect(text.terminalSafe == shown)
        #expect(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("--json escapes DEL and C1 too (the encoder does C0), and a reader decodes exactly what was sent")
    func json() throws {
        let text = "a\u{1B}]0;t\u{7}b\u{7F}c\u{9B}d\ne"
        let encoded = JSONOutput.encode(["text": text])
        #expect(!encoded.unicodeScalars.contains { $0.properties.generalCategory == .control })
        #expect(encoded.contains("\\u007f") && encoded.contains("\\u009b"))
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(encoded.utf8))
        #expect(decoded["text"] == text)
        #expect(JSONOutput.encode(["text": "plain"]) == #"{"text":"plain"}"#)
    }
}

/// Issue 32, item 26: what an older server may still send of bidi overrides, zero-width and tag
/// characters is shown, not obeyed.
@Suite("Terminal-safe text: invisible characters")
struct TerminalSafeInvisibleTests {
    @Test(
        "shows bidi overrides, zero-width, line separators and tags as visible \\u{...} escapes",
        arguments: [
            ("pay \u{202E}fdp.exe", "pay \\u{202e}fdp.exe"),
            ("a\u{2066}b\u{2069}c", "a\\u{2066}b\\u{2069}c"),
            ("zero\u{200B}width\u{FEFF}", "zero\\u{200b}width\\u{feff}"),
            ("line\u{2028}forged", "line\\u{2028}forged"),
            ("tag\u{E0041}\u{E007F}", "tag\\u{e0041}\\u{e007f}"),
            ("ad\u{200D}min", "ad\\u{200d}min"),
            ("👨‍👩‍👧 ok", "👨‍👩‍👧 ok"),
        ])
    func neutralises(text: String, shown: String) {
        #expect(text.terminalSafe == shown)
    }
}
