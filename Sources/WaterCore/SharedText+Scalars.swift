/// The scalars ``SharedText`` refuses and a client neutralises when it prints what others wrote:
/// one rule for both sides.
extension SharedText {
    /// Why a scalar is refused.
    public enum Hazard: Sendable {
        /// C0, DEL or C1 (general category Cc): an escape sequence, a newline.
        case control
        /// What reorders or hides text (Unicode TR 36; the CVE-2021-42574 class): bidi embeddings,
        /// overrides and isolates (U+202A-202E, U+2066-2069), zero-width characters (U+200B-200F,
        /// U+2060, U+FEFF), the line and paragraph separators (U+2028, U+2029) and tag
        /// characters (U+E0000-E007F, which hide ASCII from a reader).
        case invisible
    }

    /// What `scalar` is to the rule, on its own; nil when it is ordinary text.
    public static func hazard(_ scalar: Unicode.Scalar) -> Hazard? {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: .control
        case 0x200B...0x200F, 0x2028...0x2029, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF, 0xE0000...0xE007F:
            .invisible
        default: nil
        }
    }

    /// Whether the scalar at `index` of `scalars` is refused: any ``hazard(_:)``, except a
    /// zero-width joiner between two emoji, which makes them one (👨‍👩‍👧, 🧑‍🍳).
    public static func refuses(_ scalars: String.UnicodeScalarView, at index: String.UnicodeScalarView.Index)
        -> Bool
    {
        let scalar = scalars[index]
        guard hazard(scalar) != nil else { return false }
        guard scalar.value == 0x200D, index > scalars.startIndex else { return true }
        let next = scalars.index(after: index)
        guard next < scalars.endIndex else { return true }
        return !(isEmojiPart(scalars[scalars.index(before: index)]) && isEmoji(scalars[next]))
    }

    /// The first scalar of `text` the rule refuses.
    public static func firstRefused(in text: String) -> String.UnicodeScalarView.Index? {
        let scalars = text.unicodeScalars
        // Most text is ASCII without control characters: one pass over its bytes.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return nil }
        return scalars.indices.first { refuses(scalars, at: $0) }
    }

    /// An emoji outside ASCII (digits and `#` are emoji too, as keycap bases).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji
    }

    /// What may end an emoji before a joiner: the emoji, a skin tone or the emoji presentation
    /// selector (U+FE0F).
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        isEmoji(scalar) || scalar.value == 0xFE0F
    }
}
