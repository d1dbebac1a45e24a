/// The rule for text one member writes and others read on their terminals: todo items, habit
/// names, display names. All the limits are here, and `proto/README.md` (section 7) and the
/// threat model in `deploy/README.md` repeat them.
///
/// - No control characters: C0 (U+0000-U+001F, newline and tab included), DEL (U+007F) and C1
///   (U+0080-U+009F). An escape sequence could clear a screen, set a terminal's title or write
///   its clipboard (OSC 52); a newline could forge a line of `todo ls`.
/// - Nothing that reorders or hides text (``Hazard/invisible``): bidi overrides and isolates,
///   zero-width characters (a joiner inside an emoji excepted), U+2028/2029 and tag characters.
///   `pay \u{202E}fdp.exe` reads as "pay exe.pdf"; tags carry ASCII no one sees.
/// - A length in characters (grapheme clusters, what a person counts) and in bytes of UTF-8:
///   four characters can hold 600 KB of combining marks, and two such items made the household's
///   list too large to send to anyone.
///
/// Only new writes are checked. An archive written before the rule still loads: what it holds is
/// shown cut (``bounded(_:)``) and the client neutralises control characters when it prints.
public struct SharedText: Sendable {
    /// What the text is, as a message names it: "an item's text".
    public let subject: String
    /// The request field that carries it.
    public let field: String
    public let characters: ClosedRange<Int>
    public let maximumBytes: Int

    /// A todo item: longer than 3 characters (the seed's rule), at most 200, and 1 KiB.
    public static let todoText = SharedText(subject: "an item's text", field: "text", characters: 4...200, bytes: 1024)
    /// A habit's name: 1 to 64 characters, at most 256 bytes.
    public static let habitName = SharedText(subject: "a habit's name", field: "name", characters: 1...64, bytes: 256)
    /// A member's display name, on the board and in exports: 1 to 64 characters, 256 bytes.
    public static let displayName = SharedText(
        subject: "a display name", field: "display_name", characters: 1...64, bytes: 256)

    init(subject: String, field: String, characters: ClosedRange<Int>, bytes: Int) {
        self.subject = subject
        self.field = field
        self.characters = characters
        self.maximumBytes = bytes
    }

    /// `text` without the whitespace around it, when it keeps the rule.
    /// - Throws: INVALID_ARGUMENT naming ``field``: too long in bytes (checked first, before any
    ///   work per character), a control character, too short or too long in characters.
    public func checked(_ text: String) throws(DomainError) -> String {
        let text = text.trimmingWhitespace()
        let bytes = text.utf8.count
        guard bytes <= maximumBytes else {
            throw .invalid(field, "\(subject) must be at most \(maximumBytes) bytes of UTF-8, got \(bytes)")
        }
        if let offset = Self.firstRefused(in: text) {
            let scalar = text.unicodeScalars[offset]
            let position = text[..<offset].count + 1
            let what =
                Self.hazard(scalar) == .control
                ? "control characters (a newline, a tab, an escape)"
                : "invisible or reordering characters (a bidi override, a zero-width space, a line separator, a tag)"
            throw .invalid(field, "\(subject) cannot hold \(what); character \(position) is " + Self.codePoint(scalar))
        }
        let count = text.count
        guard count >= characters.lowerBound else {
            throw .invalid(
                field,
                characters.lowerBound == 1
                    ? "\(subject) cannot be empty"
                    : "\(subject) must be longer than \(characters.lowerBound - 1) characters, got \(count)")
        }
        guard count <= characters.upperBound else {
            throw .invalid(field, "\(subject) must be at most \(characters.upperBound) characters, got \(count)")
        }
        return text
    }

    /// `text` as a reply carries it: whole when it fits ``maximumBytes`` (everything stored since
    /// this rule), else cut at a character to fit, ending in "…". An item an older server took
    /// with 600 KB in it still lists, so it can be seen and removed.
    public func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumBytes else { return text }
        let ellipsis = "…"
        var kept = ""
        var bytes = ellipsis.utf8.count
        for character in text {
            bytes += character.utf8.count
            guard bytes <= maximumBytes else { break }
            kept.append(character)
        }
        return kept + ellipsis
    }

    /// "U+001B".
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
