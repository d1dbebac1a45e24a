import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `drink ls|add|set|rm`: the household's drinks (admins change them).
enum DrinkCommands {
    enum List: ClientCommand {
        static let spec = CommandSpec(
            "drink ls", summary: "the household's drinks and how each counts",
            details: """
                Lists the household's drinks, each with its hydration factor (then its display name
                and icon, when it has them): an entry of ML millilitres counts round(ML x factor)
                toward the goal, halves away from zero. The defaults are the Beverage Hydration
                Index's (Maughan et al., Am J Clin Nutr 2016).
                """,
            examples: ["drink ls"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.ListDrinksRequest())
            invocation.output(response) { table(response.drinks) }
        }
    }

    enum Add: ClientCommand {
        static let spec = CommandSpec(
            "drink add", "NAME", summary: "add a drink (admins)",
            details: """
                Adds a drink: NAME is a-z, 0-9 and -, at most 15 characters; its factor is 0.10 to
                2.00, at most two decimals.
                """,
            options: [
                OptionSpec("factor", "F", "how it counts against water (0.10-2.00; water is 1.00)"),
                OptionSpec("icon", "ICON", "a short icon, like an emoji"),
                OptionSpec("display-name", "TEXT", "the name people read (Almdudler), beside NAME they type"),
            ],
            examples: [
                "drink add cocoa --factor 1.20", "drink add kombucha --factor 0.95 --icon 🍶",
                "drink add almdudler --factor 1.00 --display-name Almdudler",
            ])

        static func run(_ invocation: inout Invocation) throws {
            let factor = try factorOption(&invocation, required: true)
            let icon = try invocation.arguments.option("icon") ?? ""
            let displayName = try invocation.arguments.option("display-name") ?? ""
            let name = try named(&invocation, "drink add")
            let response = try invocation.client().call(
                WaterV1.AddDrinkRequest(
                    drink: WaterV1.Drink(
                        name: name, factorHundredths: UInt32(factor ?? 0), icon: icon, displayName: displayName)))
            invocation.output(response) { "added \(name)\n" + table(response.drinks) }
        }
    }

    enum Change: ClientCommand {
        static let spec = CommandSpec(
            "drink set", "NAME",
            summary: "change a drink's factor, icon or display name (admins; past days keep theirs)",
            details: """
                Changes how a drink counts from now on: every drink already logged keeps the factor it
                was logged at, so no past day changes.
                """,
            options: [
                OptionSpec("factor", "F", "the new factor (0.10-2.00)"),
                OptionSpec("icon", "ICON", "the new icon"),
                OptionSpec("display-name", "TEXT", "the new name people read (Kräutertee)"),
            ],
            examples: ["drink set coffee --factor 0.95", "drink set tea --display-name Kräutertee"])

        static func run(_ invocation: inout Invocation) throws {
            let factor = try factorOption(&invocation, required: false)
            let icon = try invocation.arguments.option("icon") ?? ""
            let displayName = try invocation.arguments.option("display-name") ?? ""
            let name = try named(&invocation, "drink set")
            guard factor != nil || !icon.isEmpty || !displayName.isEmpty else {
                throw UsageError("drink set needs --factor F, --icon ICON, --display-name TEXT or several")
            }
            let response = try invocation.client().call(
                WaterV1.SetDrinkRequest(
                    name: name, factorHundredths: UInt32(factor ?? 0), icon: icon, displayName: displayName))
            invocation.output(response) {
                (factor == nil && icon.isEmpty
                    ? "changed \(name)'s display name\n"
                    : "\(name) counts at its new factor from now on (drinks already logged keep theirs)\n")
                    + table(response.drinks)
            }
        }
    }

    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "drink rm", "NAME", summary: "remove a drink (admins; water stays)",
            details: "Removes a drink; drinks already logged keep it. Water cannot be removed.",
            examples: ["drink rm sports"])

        static func run(_ invocation: inout Invocation) throws {
            let name = try named(&invocation, "drink rm")
            let response = try invocation.client().call(WaterV1.RemoveDrinkRequest(name: name))
            invocation.output(response) {
                "removed \(name) (drinks already logged keep it)\n" + table(response.drinks)
            }
        }
    }

    /// The one positional argument, a drink's name, and nothing else left over.
    private static func named(_ invocation: inout Invocation, _ command: String) throws -> String {
        try invocation.arguments.onlyPositional(missing: "\(command) needs a drink's name")
    }

    /// `--factor F` in hundredths, read exactly ("1.39" is 139).
    private static func factorOption(_ invocation: inout Invocation, required: Bool) throws -> Int32? {
        guard let text = try invocation.arguments.option("factor") else {
            if required { throw UsageError("drink add needs --factor F, from 0.10 to 2.00 (water is 1.00)") }
            return nil
        }
        guard let hundredths = HydrationFactor.hundredths(text) else {
            throw UsageError("a factor is a number with at most two decimals, like 1.39; got \"\(text)\"")
        }
        return hundredths
    }

    /// One line per drink: name, factor, display name, icon.
    static func table(_ drinks: [WaterV1.Drink]) -> String {
        let width = drinks.map(\.name.count).max() ?? 0
        return drinks.map { drink in
            let factor = HydrationFactor.text(Int32(clamping: drink.factorHundredths))
            let icon =
                (drink.displayName.isEmpty ? "" : "  " + drink.displayName.terminalSafe)
                + (drink.icon.isEmpty ? "" : "  " + drink.icon.terminalSafe)
            let name = drink.name.terminalSafe
            return name + String(repeating: " ", count: max(0, width - name.count)) + "  \(factor)\(icon)"
        }.joined(separator: "\n")
    }
}
