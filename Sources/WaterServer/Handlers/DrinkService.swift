import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Drinks`: the household's drinks, kept with the accounts. Every member lists them;
/// admins change them. Entries keep the factor they were logged at, so no change here reaches
/// a past day.
struct DrinkService: Service {
    let archives: ArchiveAccess

    func register(in router: inout Router) {
        router.onLoop(.member, listDrinks)
        router.onLoop(.admin, addDrink, setDrink, removeDrink)
    }

    func listDrinks(_ request: WaterV1.ListDrinksRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListDrinksResponse
    {
        WaterV1.ListDrinksResponse(drinks: try archives.read(archives.accounts) { Wire.drinks($0.drinks) })
    }

    func addDrink(_ request: WaterV1.AddDrinkRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.AddDrinkResponse
    {
        let wanted = request.drink ?? WaterV1.Drink()
        let drink = Drink(
            name: wanted.name, factorHundredths: Int32(clamping: wanted.factorHundredths), icon: wanted.icon,
            displayName: wanted.displayName)
        return WaterV1.AddDrinkResponse(drinks: try change(call) { try $0.validateAdd(drink) })
    }

    func setDrink(_ request: WaterV1.SetDrinkRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetDrinkResponse
    {
        WaterV1.SetDrinkResponse(
            drinks: try change(call) {
                try $0.validateSet(
                    request.name,
                    factorHundredths: request.factorHundredths == 0 ? nil : Int32(clamping: request.factorHundredths),
                    icon: request.icon.isEmpty ? nil : request.icon,
                    displayName: request.displayName.isEmpty ? nil : request.displayName)
            })
    }

    func removeDrink(_ request: WaterV1.RemoveDrinkRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.RemoveDrinkResponse
    {
        WaterV1.RemoveDrinkResponse(drinks: try change(call) { try $0.validateRemove(request.name) })
    }

    /// Applies what `decide` makes of the list and answers with the list after it.
    private func change(_ call: CallContext, _ decide: (DrinkList) throws -> DrinkMutation) throws(WaterError)
        -> [WaterV1.Drink]
    {
        try archives.commitReturning(
            for: call,
            archives.accounts, { book in Decision([.drink(try decide(book.drinks))]) },
            result: { book, _ in Wire.drinks(book.drinks) })
    }
}
