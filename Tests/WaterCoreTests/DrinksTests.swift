import Testing
import WaterCore

/// Logs `drink` (nil: water) and applies it.
private func log(
    _ diary: inout WaterDiary, _ n: UInt64, _ amount: Int32, _ drink: Drink?, at offset: Int64 = 0
) throws {
    diary.apply(
        try diary.validateLog(
            id: id(n), amountMillilitres: amount, unixMilliseconds: noon + offset, drink: drink, now: noon
        ).mutation)
}

@Suite("Drinks")
struct DrinksTests {
    let today = MemberTimeZone.utc.date(atUnixMilliseconds: noon)
    let list = DrinkList()

    @Test(
        "an entry counts round(ml x factor), halves away from zero",
        arguments: [
            (200, 150, 300), (200, 139, 278), (50, 91, 46), (250, 98, 245), (333, 91, 303), (1, 10, 0),
            (5, 10, 1), (2000, 200, 4000), (350, 102, 357), (250, 154, 385), (15, 130, 20),
        ] as [(Int32, Int32, Int32)])
    func rounding(ml: Int32, hundredths: Int32, counted: Int32) {
        #expect(HydrationFactor.counted(millilitres: ml, hundredths: hundredths) == counted)
    }

    @Test(
        "a factor is read exactly, at most two decimals, and written with two",
        arguments: [
            ("1.39", 139), ("1.5", 150), ("1", 100), (".91", 91), ("0.10", 10), ("2.00", 200), ("1.234", nil),
            ("-1", nil), ("1e2", nil), ("", nil), (".", nil), ("1.", nil), ("100", nil), ("１.5", nil),
        ] as [(String, Int32?)])
    func factorText(text: String, hundredths: Int32?) {
        #expect(HydrationFactor.hundredths(text) == hundredths)
        if let hundredths { #expect(HydrationFactor.hundredths(HydrationFactor.text(hundredths)) == hundredths) }
    }

    @Test("the defaults are the Beverage Hydration Index's")
    func defaults() {
        #expect(
            list.drinks.map { "\($0.name) \(HydrationFactor.text($0.factorHundredths))" } == [
                "water 1.00", "sparkling 0.98", "tea 1.00", "coffee 0.91", "milk 1.50", "juice 1.39", "sports 1.02",
                "ors 1.54",
            ])
        #expect(list.isValid)
    }

    @Test("a day counts each entry at its own factor; the raw millilitres are kept beside")
    func dayAmount() throws {
        var water = WaterDiary(timeZone: .utc)
        try log(&water, 1, 250, nil, at: -3 * hour)
        try log(&water, 2, 200, list.drink(named: "milk"), at: -2 * hour)
        try log(&water, 3, 333, list.drink(named: "coffee"), at: -hour)
        let summary = water.day(today)
        #expect((summary.amountMillilitres, summary.rawMillilitres, summary.count) == (250 + 300 + 303, 783, 3))
        #expect(water.entries(on: today).map(\.drink) == ["coffee", "milk", "water"])
        // Removing an entry takes off what it counted.
        water.apply(try water.validateDelete(id: id(2)))
        #expect((water.day(today).amountMillilitres, water.day(today).rawMillilitres) == (553, 583))
    }

    @Test("changing or removing a drink never rewrites an entry logged before")
    func pastDaysKeepTheirFactor() throws {
        var drinks = list
        var water = WaterDiary(timeZone: .utc)
        try log(&water, 1, 200, drinks.drink(named: "juice"))
        drinks.apply(try drinks.validateSet("juice", factorHundredths: 50, icon: nil))
        try log(&water, 2, 200, drinks.drink(named: "juice"), at: 1000)
        drinks.apply(try drinks.validateRemove("juice"))
        #expect(water.entries.map(\.countedMillilitres) == [278, 100])
        #expect(water.day(today).amountMillilitres == 378)
        #expect(drinks.drink(named: "juice") == nil)
    }

    @Test("the list's rules: names, factors, no repeats, water stays")
    func listRules() throws {
        #expect(throws: DomainError.self) { try list.validateAdd(Drink(name: "Tea!", factorHundredths: 100)) }
        #expect(throws: DomainError.self) {
            try list.validateAdd(Drink(name: "sixteen-letters1", factorHundredths: 100))
        }
        #expect(throws: DomainError.self) { try list.validateAdd(Drink(name: "cocoa", factorHundredths: 9)) }
        #expect(throws: DomainError.self) { try list.validateAdd(Drink(name: "cocoa", factorHundredths: 201)) }
        #expect(throws: DomainError.self) {
            try list.validateAdd(Drink(name: "cocoa", factorHundredths: 120, icon: "\u{1b}]52"))
        }
        let repeated = #expect(throws: DomainError.self) {
            try list.validateAdd(Drink(name: "tea", factorHundredths: 100))
        }
        #expect(repeated?.kind == .conflict)
        let water = #expect(throws: DomainError.self) { try list.validateRemove("water") }
        #expect(water?.message.contains("water cannot be removed") == true)
        let unknown = #expect(throws: DomainError.self) { try list.existing("lemonade") }
        #expect(
            unknown?.message
                == "the household has no drink called lemonade; it has water, sparkling, tea, coffee, milk, juice, sports, ors"
        )
        var drinks = list
        drinks.apply(try drinks.validateAdd(Drink(name: "cocoa", factorHundredths: 120, icon: "🍫")))
        #expect(drinks.drink(named: "cocoa") == Drink(name: "cocoa", factorHundredths: 120, icon: "🍫"))
    }

    @Test("a refusal repeats a name of a drink's form, and says \"that\" for anything else")
    func refusalsEchoOnlyNames() throws {
        let water = WaterDiary(timeZone: .utc)
        for (typed, shown) in [("lemonade", "lemonade"), ("Tea!\u{1b}[2J", "that")] {
            let drink = #expect(throws: DomainError.self) { try list.existing(typed) }
            #expect(drink?.message.hasPrefix("the household has no drink called \(shown); ") == true, "\(typed)")
            let cup = #expect(throws: DomainError.self) { try water.validateRemoveCup(typed) }
            #expect(cup?.message == "you have no cup called \(shown)", "\(typed)")
            let log = #expect(throws: DomainError.self) {
                try water.resolveLog(name: typed, usual: false, amount: nil, drinks: list)
            }
            #expect(log?.message.hasPrefix("the household has no drink called \(shown); ") == true, "\(typed)")
        }
    }

    @Test("a replay of an entry names the same drink or is refused")
    func replay() throws {
        var water = WaterDiary(timeZone: .utc)
        try log(&water, 1, 200, list.drink(named: "tea"))
        let again = try water.validateLog(
            id: id(1), amountMillilitres: 200, unixMilliseconds: noon, drink: list.drink(named: "tea"), now: noon)
        #expect(again == .duplicate(water.entries[0]))
        #expect(throws: DomainError.self) {
            try water.validateLog(
                id: id(1), amountMillilitres: 200, unixMilliseconds: noon, drink: list.drink(named: "milk"), now: noon)
        }
    }
}
