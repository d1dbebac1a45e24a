import Testing
import WaterCore

/// Issue 32, item 26: what reorders or hides text (Unicode TR 36; the CVE-2021-42574 class) is
/// refused in shared text and display names, as control characters are.
@Suite("SharedText: bidi overrides, zero-width and tag characters")
struct InvisibleTextTests {
    @Test(
        "refuses bidi embeddings, overrides and isolates, zero-width characters, U+2028/2029 and tags, naming where",
        arguments: [
            0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200B, 0x200C, 0x200D, 0x200E,
            0x200F, 0x2060, 0xFEFF, 0x2028, 0x2029, 0xE0000, 0xE0001, 0xE0041, 0xE007F,
        ] as [UInt32])
    func refused(value: UInt32) {
        let scalar = Unicode.Scalar(value)!
        for rule in [SharedText.todoText, .habitName, .displayName, Drink.iconText, WaterDiary.excuseReason] {
            let error = #expect(throws: DomainError.self) { try rule.checked("buy \(scalar)filters") }
            #expect(error?.field == rule.field, "\(rule.subject) U+\(String(value, radix: 16))")
            #expect(error?.message.contains("character 5 is U+") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("invisible") == true, "\(error?.message ?? "")")
        }
    }

    @Test("a zero-width joiner inside an emoji sequence is part of the emoji and is kept; alone it is refused")
    func joinerInEmoji() throws {
        #expect(try SharedText.habitName.checked("👨‍👩‍👧‍👦 time") == "👨‍👩‍👧‍👦 time")
        #expect(try SharedText.todoText.checked("cook 🧑‍🍳 dinner") == "cook 🧑‍🍳 dinner")
        #expect(throws: DomainError.self) { try SharedText.todoText.checked("ad\u{200D}min tasks") }
        #expect(throws: DomainError.self) { try SharedText.todoText.checked("👨\u{200D} time") }
        #expect(throws: DomainError.self) { try SharedText.todoText.checked("\u{200D}👨 time") }
    }

    @Test("the rule is one: every scalar it refuses is one the printing side neutralises")
    func oneRule() {
        #expect(SharedText.hazard("\u{202E}") == .invisible && SharedText.hazard("\u{1B}") == .control)
        #expect(SharedText.hazard("a") == nil && SharedText.hazard("ä") == nil)
        // A joiner is judged by its neighbours: refused alone, kept between two emoji.
        let family = "👨\u{200D}👩".unicodeScalars
        #expect(!SharedText.refuses(family, at: family.index(after: family.startIndex)))
        let alone = "a\u{200D}b".unicodeScalars
        #expect(SharedText.refuses(alone, at: alone.index(after: alone.startIndex)))
    }
}
