import WaterProtocol

/// What this computer learns of the member's usual cup, usual drink and named cups, so that `log
/// NAME` works away from the server for a cup heard of here (`cup add`, `cup ls`, `log NAME`).
extension StatusCache {
    /// Everything a reply's settings say of them (`cup`, `cup add`, `cup ls`, `cup rm`).
    public mutating func record(settings: WaterV1.Settings, now: Int64) {
        usualCupMl = settings.usualCupMl
        if !settings.usualDrink.isEmpty { usualDrink = settings.usualDrink }
        cups = settings.cups
        updatedAtUnixMs = now
    }

    /// A drink logged online as `log NAME` with no amount: when NAME was not a drink (the
    /// entry's drink is another), it was one of the member's cups, of this amount and drink. A
    /// cup of the usual drink is kept as one of whatever the usual drink is when logged.
    public mutating func record(loggedAs name: String, amountTyped: Bool, entry: WaterV1.WaterEntry, now: Int64) {
        guard !amountTyped, !name.isEmpty, entry.drink != name, entry.amountMl > 0 else { return }
        let known = cups.first { $0.name == name }
        // A cup of the usual drink stays one: it follows the usual drink when that changes.
        let drink = entry.drink == usualDrink && (known?.drink.isEmpty ?? true) ? "" : entry.drink
        cups.removeAll { $0.name == name }
        cups.append(WaterV1.Cup(name: name, amountMl: entry.amountMl, drink: drink))
        updatedAtUnixMs = now
    }
}
