/// An amount as a person types it, the same at every command that takes one (`log`, `edit
/// --amount`, `goal`, `cup`, `cup add`): whole millilitres, or litres and centilitres as a
/// bottle prints them.
public enum TypedAmount {
    /// The forms, for a refusal: "an amount is \(forms); got …".
    public static let forms = "whole millilitres (250, 250ml) or litres or centilitres as a bottle says (0.5l, 33cl)"

    /// Millilitres of `text`: "250", "250ml", "250mL", "0.5l", "1.5L", "33cl", "33.5cl". Nil for
    /// anything else, and for an amount that is not a whole number of millilitres ("0.3333l").
    public static func millilitres(_ text: String) -> Int32? {
        let units: [(suffix: String, decimals: Int)] = [("ml", 0), ("mL", 0), ("cl", 1), ("l", 3), ("L", 3)]
        let (number, decimals) =
            units.first { text.hasSuffix($0.suffix) }.map { (String(text.dropLast($0.suffix.count)), $0.decimals) }
            ?? (text, 0)
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), parts.count == 1 || !fraction.isEmpty, whole.count <= 6,
            (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        // Decimals beyond what makes whole millilitres must all be zero.
        guard fraction.dropFirst(decimals).allSatisfy({ $0 == "0" }) else { return nil }
        let kept = String(fraction.prefix(decimals))
        let padded = kept + String(repeating: "0", count: decimals - kept.count)
        return Int32(String(whole) + padded)
    }
}
