import Testing
import WaterCLI

@Suite("Display width")
struct DisplayWidthTests {
    @Test(
        "columns a text takes: combining marks 0, East Asian wide and emoji 2",
        arguments: [
            ("Mum", 3), ("Zoe\u{0308}", 3), ("Zoë", 3), ("山田", 4), ("Ana 🐳", 6), ("❤️", 2), ("👨‍👩‍👧", 2),
            ("\u{0301}", 0), ("ｔｅａ", 6), ("", 0),
        ])
    func widths(text: String, columns: Int) {
        #expect(text.displayWidth == columns)
    }

    @Test("a start that fits: never half of a wide character")
    func prefixes() {
        #expect("山田太郎".prefix(columns: 5) == "山田")
        #expect("Zoë🐳x".prefix(columns: 4) == "Zoë")
        #expect("Zoë🐳x".prefix(columns: 5) == "Zoë🐳")
    }
}

@Suite("Word wrap")
struct WordWrapTests {
    @Test("a message broken at spaces to the width, never mid-word; a word longer than a line is cut")
    func wraps() {
        let notice =
            "cannot reach the server at 127.0.0.1:7411: connect to 127.0.0.1:7411: Connection refused; "
            + "trying again in 1 s (Ctrl-C stops)"
        let lines = notice.wrapped(columns: 30)
        #expect(lines.allSatisfy { $0.displayWidth <= 30 }, "\(lines)")
        #expect(lines.joined(separator: " ") == notice)
        #expect(lines.first == "cannot reach the server at")
        #expect("abcdefgh ij".wrapped(columns: 3) == ["abc", "def", "gh", "ij"])
        #expect("山田 太郎".wrapped(columns: 4) == ["山田", "太郎"])
        #expect("short".wrapped(columns: 80) == ["short"])
        #expect("".wrapped(columns: 10) == [""])
    }
}
