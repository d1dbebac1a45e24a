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
