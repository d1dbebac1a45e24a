import Foundation
import Testing
import WaterClient
import WaterProtocol

/// What this computer keeps of drinks for when the server cannot be reached (issue 20 item 2).
@Suite("Status cache: drinks")
struct StatusCacheDrinksTests {
    @Test("a cache written before drinks still reads, with no drinks heard")
    func oldCache() throws {
        let old =
            #"{"server":"pi:7420","username":"mum","time_zone":"UTC","updated_at_unix_ms":5,"usual_cup_ml":300,"#
            + #""entries":[],"days":[],"habits":[],"todos":[]}"#
        let cache = try JSONDecoder().decode(StatusCache.self, from: Data(old.utf8))
        #expect(cache.usualCupMl == 300 && cache.drinks.isEmpty && cache.usualDrink == "")
    }

    @Test("today's reply keeps the household's drinks and the usual drink; a waiting drink counts at its factor")
    func counted() {
        var cache = StatusCache(server: "pi:7420", username: "mum")
        cache.record(
            today: WaterV1.GetTodayResponse(
                day: WaterV1.DaySummary(date: "2026-12-01", goalMl: 2000),
                settings: WaterV1.Settings(usualCupMl: 250, usualDrink: "milk"),
                drinks: [
                    WaterV1.Drink(name: "water", factorHundredths: 100),
                    WaterV1.Drink(name: "milk", factorHundredths: 150),
                ]),
            now: 1)
        #expect(cache.usualDrink == "milk" && cache.drinks.map(\.name) == ["water", "milk"])
        #expect(cache.counted(WaterV1.WaterEntry(amountMl: 200, drink: "milk")) == 300)
        #expect(cache.counted(WaterV1.WaterEntry(amountMl: 200)) == 200)
        #expect(
            cache.counted(WaterV1.WaterEntry(amountMl: 200, drink: "milk", factorHundredths: 150, countedMl: 300))
                == 300)
        // A drink not heard of counts as water until the server says otherwise.
        #expect(cache.counted(WaterV1.WaterEntry(amountMl: 200, drink: "cocoa")) == 200)
    }
}
