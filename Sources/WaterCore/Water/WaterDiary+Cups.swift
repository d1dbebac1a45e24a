/// The member's usual drink, usual cup and named cups: checking a change of them, and what a log
/// that names a drink or a cup (or none) comes to.
extension WaterDiary {
    /// The drink `log` logs when none is named, checked against the household's `drinks`.
    public func validateUsualDrink(_ name: String, in drinks: DrinkList) throws(DomainError) -> WaterMutation {
        .usualDrinkSet(try drinks.existing(name, field: "usual_drink").name)
    }

    /// The member's usual drink as the household has it now.
    /// - Throws: INVALID_ARGUMENT when the household has removed it since it was chosen.
    public func usualDrink(in drinks: DrinkList) throws(DomainError) -> Drink {
        guard let drink = drinks.drink(named: usualDrink) else {
            throw .invalid(
                "usual_drink",
                "your usual drink, \(usualDrink), is no longer one of the household's drinks; choose another with "
                    + "water-client cup --drink DRINK (it has \(drinks.names.joined(separator: ", ")))")
        }
        return drink
    }

    /// Keeps a named cup: a name of the drinks' form that is none of the household's `drinks`,
    /// an amount of 1-2000 ml, and a drink the household has.
    public func validateAddCup(_ cup: NamedCup, drinks: DrinkList) throws(DomainError) -> WaterMutation {
        guard Drink.isValidName(cup.name) else {
            throw .invalid(
                "cup.name", "a cup's name must start with a-z and hold only a-z, 0-9 and -, at most 15 characters")
        }
        guard drinks.drink(named: cup.name) == nil else {
            throw DomainError(
                .conflict, field: "cup.name",
                "\(cup.name) is one of the household's drinks; a cup needs a name of its own (log \(cup.name) logs the drink)"
            )
        }
        guard WaterLimits.amountMillilitres.contains(cup.amountMillilitres) else {
            throw .invalid("cup.amount_ml", "a cup must be between 1 and 2000 ml, got \(cup.amountMillilitres)")
        }
        if let drink = cup.drink { _ = try drinks.existing(drink, field: "cup.drink") }
        guard cups.count < NamedCup.maximumCount || cups.contains(where: { $0.name == cup.name }) else {
            throw DomainError(
                .full, "you keep \(NamedCup.maximumCount) named cups, the most there can be; remove one first")
        }
        return .cupSaved(cup)
    }

    public func validateRemoveCup(_ name: String) throws(DomainError) -> WaterMutation {
        guard cups.contains(where: { $0.name == name }) else {
            let named = Drink.echoed(name)
            throw DomainError(.notFound, field: "name", "you have no cup called \(named)")
        }
        return .cupRemoved(name)
    }

    /// What a log names, as amount and drink: `name` is one of the household's `drinks` (which
    /// wins), one of the member's cups (its amount unless `amount` is given, its drink or the
    /// usual one), or nil for the usual drink (`usual`) or water (a client from before drinks).
    /// - Throws: INVALID_ARGUMENT on `drink`, listing the drinks and cups there are.
    public func resolveLog(name: String?, usual: Bool, amount: Int32?, drinks: DrinkList) throws(DomainError)
        -> (amount: Int32?, drink: Drink?)
    {
        guard let name else { return (amount, usual ? try usualDrink(in: drinks) : nil) }
        if let drink = drinks.drink(named: name) { return (amount, drink) }
        guard let cup = cup(named: name) else {
            let named = Drink.echoed(name)
            let yours = cups.isEmpty ? "" : "; your cups are \(cups.map(\.name).joined(separator: ", "))"
            throw .invalid(
                "drink",
                "the household has no drink called \(named); it has \(drinks.names.joined(separator: ", "))\(yours)")
        }
        let drink: Drink
        if let named = cup.drink { drink = try drinks.existing(named) } else { drink = try usualDrink(in: drinks) }
        return (amount ?? cup.amountMillilitres, drink)
    }

    public func cup(named name: String) -> NamedCup? {
        cups.first { $0.name == name }
    }

    public func validateUsualCup(_ cup: Int32) throws(DomainError) -> WaterMutation {
        guard WaterLimits.usualCupMillilitres.contains(cup) else {
            throw .invalid("usual_cup_ml", "a usual cup must be between 1 and 2000 ml, got \(cup)")
        }
        return .usualCupSet(cup)
    }
}
