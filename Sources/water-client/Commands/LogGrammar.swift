import WaterCLI

/// What `log [AMOUNT] [DRINK]` says: an amount, a name, both (in either order) or neither.
/// A word that starts with a digit, a point or a comma is an amount, and a unit right after it
/// (`log 33 cl`, typed without quotes) is part of it; any other word is a name (a drink, or one
/// of the member's named cups).
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
        var words = words[...]
        while let word = words.popFirst() {
            if let first = word.first, first.isASCII && (first.isNumber || first == "." || first == ",") {
                guard amountMillilitres == nil else { throw UsageError("log takes one amount, got two") }
                let unit = words.first.flatMap { Self.units.contains($0.lowercased()) ? $0 : nil }
                if unit != nil { words.removeFirst() }
                amountMillilitres = try WaterCommands.drinkMl(unit.map { "\(word) \($0)" } ?? word)
            } else {
                guard name == nil else {
                    throw UsageError("log takes one drink or cup, got \"\(name!)\" and \"\(word)\"")
                }
                name = word
            }
        }
    }

    /// The units an amount may have as a word of its own.
    private static let units: Set<String> = ["ml", "cl", "dl", "l"]
}
