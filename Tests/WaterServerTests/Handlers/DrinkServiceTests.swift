import Testing
import WaterCore
import WaterProtocol

@testable import WaterServer

/// `water.v1.Drinks`' handlers and LogWater's drink, called in process on a real store.
@Suite("Drink service")
struct DrinkServiceTests {
    typealias H = HandlerHarness

    func log(_ h: H, _ amount: Int32, _ drink: String, at offset: Int64) -> Result<WaterV1.LogWaterResponse, WaterError>
    {
        h.call(
            h.tracker.logWater,
            WaterV1.LogWaterRequest(entryID: newID(), amountMl: amount, atUnixMs: H.monday + offset, drink: drink),
            as: h.admin)
    }

    @Test("a drink is logged at its factor of now; a later change leaves the day as it was")
    func factorInForce() throws {
        let h = try H()
        let milk = try log(h, 200, "milk", at: -3 * H.hour).get()
        #expect(milk.entry?.drink == "milk" && milk.entry?.factorHundredths == 150 && milk.entry?.countedMl == 300)
        #expect(milk.day?.amountMl == 300 && milk.day?.rawMl == 200)
        // No drink named: water, as a client from before drinks logs.
        let plain = try log(h, 250, "", at: -2 * H.hour).get()
        #expect(plain.entry?.drink == "water" && plain.entry?.factorHundredths == 100 && plain.day?.amountMl == 550)

        let changed = try h.call(
            h.drinks.setDrink, WaterV1.SetDrinkRequest(name: "milk", factorHundredths: 110), as: h.admin
        ).get()
        #expect(changed.drinks.first { $0.name == "milk" }?.factorHundredths == 110)
        let again = try log(h, 200, "milk", at: -H.hour).get()
        #expect(again.entry?.countedMl == 220 && again.day?.amountMl == 770 && again.day?.rawMl == 650)
        _ = try h.call(h.drinks.removeDrink, WaterV1.RemoveDrinkRequest(name: "milk"), as: h.admin).get()
        let today = try h.call(h.tracker.today, WaterV1.GetTodayRequest(), as: h.admin).get()
        #expect(today.day?.amountMl == 770)
        #expect(today.entries.map(\.countedMl) == [220, 250, 300])
        #expect(today.entries.map(\.drink) == ["milk", "water", "milk"])
    }

    @Test("a drink the household does not have is refused with the list, and nothing is written")
    func unknownDrink() throws {
        let h = try H()
        let error = try #require(log(h, 200, "lemonade", at: 0).error)
        #expect(error.code == .invalidArgument && error.violations.map(\.field) == ["drink"])
        #expect(error.message.contains("water, sparkling, tea, coffee, milk, juice, sports, ors"))
        #expect(try h.services.store.member(h.admin.id)!.read { $0.water.entries.count } == 0)
    }

    @Test("water stays; a new drink needs a name, a factor in range and a short icon")
    func listRules() throws {
        let h = try H()
        let water = try #require(
            h.call(h.drinks.removeDrink, WaterV1.RemoveDrinkRequest(name: "water"), as: h.admin).error)
        #expect(water.code == .invalidArgument)
        let add = { (drink: WaterV1.Drink) in
            h.call(h.drinks.addDrink, WaterV1.AddDrinkRequest(drink: drink), as: h.admin)
        }
        #expect(
            add(WaterV1.Drink(name: "cocoa", factorHundredths: 0)).error?.violations.map(\.field) == [
                "drink.factor_hundredths"
            ])
        #expect(add(WaterV1.Drink(name: "tea", factorHundredths: 100)).error?.code == .alreadyExists)
        #expect(
            add(WaterV1.Drink(name: "Cocoa", factorHundredths: 120)).error?.violations.map(\.field) == ["drink.name"])
        #expect(
            add(WaterV1.Drink(name: "cocoa", factorHundredths: 120, icon: "🍫🍫🍫🍫🍫")).error?.violations.map(\.field) == [
                "icon"
            ])
        let added = try add(WaterV1.Drink(name: "cocoa", factorHundredths: 120, icon: "🍫")).get()
        #expect(added.drinks.last == WaterV1.Drink(name: "cocoa", factorHundredths: 120, icon: "🍫"))
        let listed = try h.call(h.drinks.listDrinks, WaterV1.ListDrinksRequest(), as: h.admin).get()
        #expect(
            listed.drinks.map(\.name) == [
                "water", "sparkling", "tea", "coffee", "milk", "juice", "sports", "ors", "cocoa",
            ])
    }

    @Test("an import keeps each entry's drink and factor as exported; one from before drinks is water")
    func importKeepsFactors() throws {
        let h = try H()
        let history = WaterV1.MemberHistory(entries: [
            WaterV1.WaterEntry(
                entryID: newID(), amountMl: 200, atUnixMs: H.monday - 3 * H.hour, drink: "cocoa", factorHundredths: 120),
            WaterV1.WaterEntry(entryID: newID(), amountMl: 300, atUnixMs: H.monday - 2 * H.hour),
        ])
        _ = try h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: history), as: h.admin).get()
        let today = try h.call(h.tracker.today, WaterV1.GetTodayRequest(), as: h.admin).get()
        #expect(today.entries.map(\.drink) == ["water", "cocoa"] && today.day?.amountMl == 540)
        var bad = history
        bad.entries = [
            WaterV1.WaterEntry(
                entryID: newID(), amountMl: 200, atUnixMs: H.monday - H.hour, drink: "tea", factorHundredths: 900)
        ]
        let error = h.call(h.transfer.importHistory, WaterV1.ImportRequest(history: bad), as: h.admin).error
        #expect(error?.violations.map(\.field) == ["entries.factor_hundredths"])
    }

    @Test("the usual drink is what a log without a drink logs, when asked for; water keeps 1.00")
    func usualDrinkAndWater() throws {
        let h = try H()
        let set = try h.call(h.tracker.setUsualCup, WaterV1.SetUsualCupRequest(usualDrink: "juice"), as: h.admin).get()
        #expect(set.settings?.usualDrink == "juice" && set.settings?.usualCupMl == 250)
        let usual = try h.call(
            h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 100, usualDrink: true), as: h.admin
        ).get()
        #expect(usual.entry?.drink == "juice" && usual.entry?.countedMl == 139)
        // A client from before drinks says nothing of drinks: water, whatever the usual drink.
        let old = try h.call(h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 100), as: h.admin)
            .get()
        #expect(old.entry?.drink == "water" && old.day?.amountMl == 239)
        #expect(
            h.call(h.tracker.setUsualCup, WaterV1.SetUsualCupRequest(), as: h.admin).error?.code == .invalidArgument)
        let water = h.call(h.drinks.setDrink, WaterV1.SetDrinkRequest(name: "water", factorHundredths: 90), as: h.admin)
        #expect(water.error?.violations.map(\.field) == ["factor_hundredths"])
        let icon = try h.call(h.drinks.setDrink, WaterV1.SetDrinkRequest(name: "water", icon: "💧"), as: h.admin).get()
        #expect(icon.drinks.first == WaterV1.Drink(name: "water", factorHundredths: 100, icon: "💧"))
    }
}
