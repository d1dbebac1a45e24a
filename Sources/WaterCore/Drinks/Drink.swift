/// One of the household's drinks: a name people type, its hydration factor and an optional icon.
public struct Drink: Hashable, Sendable {
    /// Matches `^[a-z][a-z0-9-]{0,14}$`: at most 15 bytes, so the name an entry keeps is a
    /// small string held inline, with no allocation per entry.
    public var name: String
    /// ``HydrationFactor/allowedHundredths``.
    public var factorHundredths: Int32
    /// Empty, or at most 4 characters and 16 bytes without control characters.
    public var icon: String
    /// Empty, or what people read beside ``name`` (Kräutertee): ``displayNameText``'s rule.
    public var displayName: String

    public init(name: String, factorHundredths: Int32, icon: String = "", displayName: String = "") {
        self.name = name
        self.factorHundredths = factorHundredths
        self.icon = icon
        self.displayName = displayName
    }

    /// What every entry without a drink is, and the one drink that cannot be removed.
    public static let waterName = "water"

    /// A new household's drinks, from the Beverage Hydration Index (Maughan et al., Am J Clin
    /// Nutr 2016; 103:717-23): how much of each is retained 2 hours after drinking, relative to
    /// still water.
    public static let defaults: [Drink] = [
        Drink(name: "water", factorHundredths: 100),
        Drink(name: "sparkling", factorHundredths: 98),
        Drink(name: "tea", factorHundredths: 100),
        Drink(name: "coffee", factorHundredths: 91),
        Drink(name: "milk", factorHundredths: 150),
        Drink(name: "juice", factorHundredths: 139),
        Drink(name: "sports", factorHundredths: 102),
        Drink(name: "ors", factorHundredths: 154),
    ]

    /// A drink's icon: short, shown on others' terminals.
    public static let iconText = SharedText(subject: "a drink's icon", field: "icon", characters: 1...4, bytes: 16)
    /// A drink's display name: shown on others' terminals, like a member's.
    public static let displayNameText = SharedText(
        subject: "a drink's display name", field: "display_name", characters: 1...32, bytes: 128)

    /// The drink an imported entry names, at the factor it was logged at (the household may have
    /// changed or removed it since). None named: water, as in an export from before drinks.
    /// - Throws: INVALID_ARGUMENT on `drink` or `factor_hundredths`.
    public static func logged(name: String, factorHundredths: Int32) throws(DomainError) -> Drink? {
        if name.isEmpty && factorHundredths == 0 { return nil }
        guard isValidName(name) else {
            throw .invalid("drink", "an entry's drink must be a drink's name, like tea; got something else")
        }
        guard HydrationFactor.allowedHundredths.contains(factorHundredths) else {
            throw .invalid(
                "factor_hundredths",
                "an entry's factor must be between 0.10 and 2.00, got \(HydrationFactor.text(factorHundredths))")
        }
        return Drink(name: name, factorHundredths: factorHundredths)
    }

    public static func isValidName(_ name: String) -> Bool {
        NameForm.drink.matches(name)
    }

    /// `name` as a refusal may repeat it: itself when it has a drink's form, else "that" (what
    /// was typed may hold anything).
    static func echoed(_ name: String) -> String {
        isValidName(name) ? name : "that"
    }
}
