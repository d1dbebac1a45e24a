/// The household's drinks, in the order they were added (water first). Admins change it;
/// entries keep the factor they were logged at, so no change here rewrites a past day.
public struct DrinkList: Hashable, Sendable {
    public private(set) var drinks: [Drink]

    /// A new household's list (also an old household's, whose accounts kept no drinks).
    public init(_ drinks: [Drink] = Drink.defaults) {
        self.drinks = drinks
    }

    /// At most this many drinks: every list goes in replies and offline caches whole.
    public static let maximumCount = 64

    public func drink(named name: String) -> Drink? {
        drinks.first { $0.name == name }
    }

    /// The drink called `name`.
    /// - Throws: INVALID_ARGUMENT naming `field` and listing the drinks there are.
    public func existing(_ name: String, field: String = "drink") throws(DomainError) -> Drink {
        guard let drink = drink(named: name) else {
            let named = Drink.echoed(name)
            throw .invalid(
                field, "the household has no drink called \(named); it has \(names.joined(separator: ", "))")
        }
        return drink
    }

    public var names: [String] { drinks.map(\.name) }

    // MARK: Validating requests

    public func validateAdd(_ drink: Drink) throws(DomainError) -> DrinkMutation {
        guard Drink.isValidName(drink.name) else {
            throw .invalid(
                "drink.name", "a drink's name must start with a-z and hold only a-z, 0-9 and -, at most 15 characters")
        }
        guard self.drink(named: drink.name) == nil else {
            throw DomainError(.conflict, field: "drink.name", "there is already a drink called \(drink.name)")
        }
        guard drinks.count < Self.maximumCount else {
            throw DomainError(
                .full, "the household has \(Self.maximumCount) drinks, the most it keeps; remove one first")
        }
        return .set(try Self.checked(drink, field: "drink."))
    }

    /// A new factor, icon, display name or several (nil keeps).
    public func validateSet(_ name: String, factorHundredths: Int32?, icon: String?, displayName: String? = nil)
        throws(DomainError) -> DrinkMutation
    {
        var drink = try existing(name, field: "name")
        if let factorHundredths, factorHundredths != drink.factorHundredths {
            guard drink.name != Drink.waterName else {
                throw .invalid(
                    "factor_hundredths", "water's factor stays 1.00: it is what every other drink is measured against")
            }
            drink.factorHundredths = factorHundredths
        }
        if let icon { drink.icon = icon }
        if let displayName { drink.displayName = displayName }
        return .set(try Self.checked(drink, field: ""))
    }

    public func validateRemove(_ name: String) throws(DomainError) -> DrinkMutation {
        let drink = try existing(name, field: "name")
        guard drink.name != Drink.waterName else {
            throw .invalid("name", "water cannot be removed: it is what every drink without a name is")
        }
        return .removed(drink.name)
    }

    private static func checked(_ drink: Drink, field prefix: String) throws(DomainError) -> Drink {
        guard HydrationFactor.allowedHundredths.contains(drink.factorHundredths) else {
            throw .invalid(
                prefix + "factor_hundredths",
                "a drink's factor must be between 0.10 and 2.00, got \(HydrationFactor.text(drink.factorHundredths))")
        }
        var drink = drink
        if !drink.icon.isEmpty { drink.icon = try Drink.iconText.checked(drink.icon) }
        if !drink.displayName.isEmpty { drink.displayName = try Drink.displayNameText.checked(drink.displayName) }
        return drink
    }

    // MARK: Applying

    public mutating func apply(_ mutation: DrinkMutation) {
        switch mutation {
        case .set(let drink):
            drinks.replaceOrAppend(drink, sameKey: \.name)
        case .removed(let name):
            guard name != Drink.waterName else { return }
            drinks.removeAll { $0.name == name }
        }
    }

    /// Names valid and unique, water present at 1.00, factors in range.
    public var isValid: Bool {
        Set(names).count == drinks.count
            && drink(named: Drink.waterName)?.factorHundredths == HydrationFactor.water
            && drinks.allSatisfy {
                Drink.isValidName($0.name) && HydrationFactor.allowedHundredths.contains($0.factorHundredths)
            }
    }
}

/// A change to the household's drinks, as the journal records it.
public enum DrinkMutation: Hashable, Sendable {
    /// A new drink, or an existing one's new factor and icon.
    case set(Drink)
    case removed(String)
}
