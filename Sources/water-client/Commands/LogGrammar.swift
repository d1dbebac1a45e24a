import WaterCLI

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
                amountMillilitres = try WaterCommands.drinkMl(word)
            } else {
                guard name == nil else {
                    throw UsageError("log takes one drink or cup, got \"\(name!)\" and \"\(word)\"")
                }
                name = word
            }
        }
    }
}
