import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `cup [ML] [--drink DRINK]`: the usual cup and drink; `cup add|ls|rm`: the member's named cups.
enum CupCommand: ClientCommand {
    static let spec = CommandSpec(
        "cup", "[ML]", summary: "show or set your usual cup (1-2000 ml) and drink",
        details: """
            Shows or sets your usual cup (1-2000 ml), what log logs without an amount, and your
            usual drink (--drink), what log logs without a drink; and the quick cups.
            """,
        options: [
            forOption, OptionSpec("drink", "DRINK", "your usual drink, one of the household's (default water)"),
        ],
        examples: ["cup", "cup 330", "cup --drink tea"])

    static func run(_ invocation: inout Invocation) throws {
        let drink = try invocation.arguments.option("drink")
        let member = try invocation.forMember()
        let amount = try invocation.arguments.positional().map(WaterCommands.amountMl)
        try invocation.arguments.finish()
        let client = try invocation.client()
        let settings: WaterV1.Settings?
        if amount != nil || drink != nil {
            let response = try client.call(
                WaterV1.SetUsualCupRequest(usualCupMl: amount ?? 0, usualDrink: drink ?? "", forMember: member))
            settings = response.settings
            invocation.output(response) { cupText(settings) }
        } else {
            let response = try client.call(WaterV1.GetSettingsRequest(forMember: member))
            settings = response.settings
            invocation.output(response) { cupText(settings) }
        }
        remember(settings, invocation, for: member)
    }

    /// What a reply says of the member's cups, kept for `log NAME` away from the server.
    private static func remember(_ settings: WaterV1.Settings?, _ invocation: Invocation, for member: String) {
        guard let settings else { return }
        invocation.updateCache(for: member) { $0.record(settings: settings, now: UnixTime.nowMilliseconds()) }
    }

    /// `cup add NAME ML [--drink DRINK]`: keeps a named cup.
    enum Add: ClientCommand {
        static let spec = CommandSpec(
            "cup add", "NAME ML", summary: "keep a named cup: log NAME logs it",
            details: """
                Keeps a named cup of yours (or changes the one of that name): log NAME then logs ML
                millilitres of its drink (--drink; without it, your usual drink). NAME is a-z, 0-9 and
                -, at most 15 characters, and none of the household's drinks.
                """,
            options: [
                forOption, OptionSpec("drink", "DRINK", "what it holds (default: your usual drink when logged)"),
            ],
            examples: ["cup add mug 350", "cup add bottle 750", "cup add latte 250 --drink milk"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let drink = try invocation.arguments.option("drink") ?? ""
            guard let name = invocation.arguments.positional(), let ml = invocation.arguments.positional() else {
                throw UsageError("cup add needs a name and an amount, like cup add mug 350")
            }
            try invocation.arguments.finish()
            let amount = try WaterCommands.amountMl(ml)
            let response = try invocation.client().call(
                WaterV1.AddCupRequest(cup: WaterV1.Cup(name: name, amountMl: amount, drink: drink), forMember: member))
            remember(response.settings, invocation, for: member)
            invocation.output(response) {
                "kept \(name): water-client log \(name)\(Format.forHint(member))\n"
                    + cupList(response.settings, for: member)
            }
        }
    }

    enum List: ClientCommand {
        static let spec = CommandSpec(
            "cup ls", summary: "your quick cups and your named cups", options: [forOption], examples: ["cup ls"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            try invocation.arguments.finish()
            let client = try invocation.client()
            let response = try client.call(WaterV1.GetSettingsRequest(forMember: member))
            remember(response.settings, invocation, for: member)
            // The household's drinks: a cup of one removed since says so.
            let drinks = try client.call(WaterV1.ListDrinksRequest()).drinks.map(\.name)
            invocation.output(response) {
                cupText(response.settings) + "\n" + cupList(response.settings, for: member, drinks: Set(drinks))
            }
        }
    }

    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "cup rm", "NAME", summary: "forget a named cup", options: [forOption], examples: ["cup rm bottle"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let name = try invocation.arguments.onlyPositional(missing: "cup rm needs a cup's name")
            let response = try invocation.client().call(WaterV1.RemoveCupRequest(name: name, forMember: member))
            remember(response.settings, invocation, for: member)
            invocation.output(response) { "removed \(name)\n" + cupList(response.settings, for: member) }
        }
    }

    /// The named cups, one a line: "mug     350 ml" or "latte   250 ml milk"; the hint for none
    /// names `member` when the command acted for them; with the household's `drinks`, a cup of a
    /// drink no longer among them says so.
    private static func cupList(_ settings: WaterV1.Settings?, for member: String, drinks: Set<String>? = nil) -> String
    {
        let cups = settings?.cups ?? []
        guard !cups.isEmpty else { return "no named cups yet: water-client cup add mug 350\(Format.forHint(member))" }
        let width = cups.map(\.name.count).max() ?? 0
        return cups.map { cup in
            let name = cup.name.terminalSafe
            return name + String(repeating: " ", count: max(0, width - name.count)) + "  \(cup.amountMl) ml"
                + (cup.drink.isEmpty ? "" : " \(cup.drink.terminalSafe)")
                + (drinks.map { cup.drink.isEmpty || $0.contains(cup.drink) } ?? true
                    ? ""
                    : " (no longer one of the household's drinks: cup add \(name) \(cup.amountMl) --drink DRINK)")
        }.joined(separator: "\n")
    }

    private static func cupText(_ settings: WaterV1.Settings?) -> String {
        let usual = settings?.usualCupMl ?? 0
        let cups = (settings?.quickCupsMl ?? []).map { $0 == usual ? Format.bold("\($0)") : "\($0)" }
        let drink = settings.map { $0.usualDrink.isEmpty ? "" : " of \($0.usualDrink.terminalSafe)" } ?? ""
        return "usual cup: \(usual) ml\(drink)\nquick cups: \(cups.joined(separator: " ")) ml"
    }
}
