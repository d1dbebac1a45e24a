/// An amount as a person types it, the same at every command that takes one (`log`, `edit
/// --amount`, `goal`, `cup`, `cup add`): whole millilitres, or litres, decilitres and centilitres
/// as a bottle prints them, in English or German (`0.5l`, `0,33l`, `1,5 l`, `330ML`, `33 cl`).
///
/// The grammar, read scalar by scalar:
///
///     amount    = number [space] [unit]
///     number    = digits [separator digits] | separator digits     (at most 6 digits before it)
///     separator = "." | ","                                          (a decimal mark, either way)
///     space     = U+0020 | U+00A0 | U+202F                          (one, and only before a unit)
///     unit      = "ml" | "cl" | "dl" | "l"                           (any case)
///
/// Millilitres are whole: a separator in them is refused, since "1.000" is 1 ml in English and
/// 1000 ml in German; so is a number of litres that is not a whole number of millilitres.
public enum TypedAmount {
    /// The forms, for a refusal: "an amount is \(forms); got …".
    public static let forms =
        "whole millilitres (250, 250ml) or litres, decilitres or centilitres as a bottle says (0.5l, 0,33l, 1,5 l, 33 cl)"

    /// Millilitres of `text`; nil when it is not an amount (``refusal(_:)`` says why).
    public static func millilitres(_ text: String) -> Int32? {
        guard case .amount(let value) = read(text) else { return nil }
        return value
    }

    /// Why `text` is not an amount, as the end of a sentence; nil when it is one.
    public static func refusal(_ text: String) -> String? {
        switch read(text) {
        case .amount: nil
        case .malformed: "an amount is \(forms); got \"\(text)\""
        case .ambiguous(let whole, let fraction):
            "\"\(text)\" could be \(whole) ml or \(whole)\(fraction) ml: write millilitres without a separator "
                + "(\(whole)\(fraction)) or say litres (\(whole),\(fraction.prefix(1))l)"
        case .millilitresWithSeparator:
            "\"\(text)\" has a decimal mark but no unit: millilitres are whole (250); say litres (1,5l)"
        case .fractionOfMillilitre:
            "an amount is \(forms); \"\(text)\" is not a whole number of millilitres"
        }
    }

    private enum Reading: Equatable {
        case amount(Int32)
        case malformed
        /// A separator before exactly three digits and no unit, or ml: thousands or decimals.
        case ambiguous(whole: Substring, fraction: Substring)
        case millilitresWithSeparator
        case fractionOfMillilitre
    }

    private static func read(_ text: String) -> Reading {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func digits() -> Substring {
            var value = ""
            while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                value.unicodeScalars.append(scalars[index])
                index += 1
            }
            return Substring(value)
        }
        let whole = digits()
        var fraction: Substring = ""
        var separated = false
        if index < scalars.count, scalars[index] == "." || scalars[index] == "," {
            separated = true
            index += 1
            fraction = digits()
            guard !fraction.isEmpty else { return .malformed }
        }
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 6 else { return .malformed }
        if index < scalars.count, [" ", "\u{A0}", "\u{202F}"].contains(scalars[index]) {
            index += 1
            guard index < scalars.count else { return .malformed }  // a space, then nothing
        }
        let unit = String(String.UnicodeScalarView(scalars[index...])).lowercased()
        let decimals: Int
        switch unit {
        case "", "ml": decimals = 0
        case "cl": decimals = 1
        case "dl": decimals = 2
        case "l": decimals = 3
        default: return .malformed
        }
        if decimals == 0 && separated {
            return fraction.count == 3 && !whole.isEmpty
                ? .ambiguous(whole: whole, fraction: fraction) : .millilitresWithSeparator
        }
        // Decimals beyond what makes whole millilitres must all be zero.
        guard fraction.dropFirst(decimals).allSatisfy({ $0 == "0" }) else { return .fractionOfMillilitre }
        let kept = fraction.prefix(decimals)
        let padded = kept + String(repeating: "0", count: decimals - kept.count)
        return Int32(whole + padded).map(Reading.amount) ?? .malformed
    }
}
