import WaterCLI
import WaterCore
import WaterProtocol

/// What `log [AMOUNT] [DRINK]` says: an amount, a name, both (in either order) or neither.
/// A word that starts with a digit or a point is an amount; any other word is a name (a drink,
/// or one of the member's named cups).
struct LogGrammar: Equatable {
    /// Whole millilitres, as typed; nil: the usual cup (or the named cup's).
    var amountMillilitres: Int32?
    var name: String?

    init(amountMillilitres: Int32? = nil, name: String? = nil) {
        self.amountMillilitres = amountMillilitres
        self.name = name
    }

    /// - Throws: `UsageError` (64) for a word that is not an amount or a name, or two of
    ///   either; `WaterError` INVALID_ARGUMENT (65) for an amount outside 1-2000 ml.
    init(_ words: [String]) throws {
        for word in words {
            if let first = word.first, first.isASCII && (first.isNumber || first == ".") {
                guard amountMillilitres == nil else { throw UsageError("log takes one amount, got two") }
                guard let amount = Self.millilitres(word) else {
                    throw UsageError(
                        "an amount is whole millilitres (250, 250ml) or litres or centilitres as a bottle says "
                            + "(0.5l, 33cl); got \"\(word)\"")
                }
                guard WaterLimits.amountMillilitres.contains(amount) else {
                    throw WaterError(
                        .invalidArgument,
                        "a drink must be between 1 and 2000 ml, got \(amount)"
                            + (amount > 2000 ? " (log it as two drinks if it really was)" : ""))
                }
                amountMillilitres = amount
            } else {
                guard name == nil else {
                    throw UsageError("log takes one drink or cup, got \"\(name!)\" and \"\(word)\"")
                }
                name = word
            }
        }
    }

    /// Millilitres of `text`: "250", "250ml", "250mL", "0.5l", "1.5L", "33cl", "33.5cl". Nil for
    /// anything else, and for an amount that is not a whole number of millilitres ("0.3333l").
    static func millilitres(_ text: String) -> Int32? {
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
