import WaterCore

extension MemberArchive {
    /// A member's record in words, with its day and time in the member's zone: what `repair`
    /// says it dropped. Names the member shares (habits) are left out: ids and days suffice.
    public func describe(_ mutation: MemberMutation) -> String? {
        switch mutation {
        case .water(.logged(let entry)):
            "a drink of \(entry.amountMillilitres) ml\(of(entry)) at \(when(entry.unixMilliseconds))"
        case .water(.edited(let entry)):
            "an edit of a drink to \(entry.amountMillilitres) ml\(of(entry)) at \(when(entry.unixMilliseconds))"
        case .water(.deleted(let id)):
            if let entry = water.entry(id) {
                "the removal of the drink of \(entry.amountMillilitres) ml at \(when(entry.unixMilliseconds))"
            } else {
                "the removal of a drink"
            }
        case .water(.goalSet(let goal, let from)): "a daily goal of \(goal) ml from \(from)"
        case .water(.usualCupSet(let cup)): "a usual cup of \(cup) ml"
        case .water(.usualDrinkSet(let drink)): "a usual drink of \(drink)"
        case .water(.cupSaved(let cup)): "a cup named \(cup.name) of \(cup.amountMillilitres) ml"
        case .water(.cupRemoved(let name)): "the removal of the cup named \(name)"
        case .water(.timeZoneSet(let zone, _)): "the time zone \(zone.identifier)"
        case .water(.excused(let day, _)): "an excused day, \(day)"
        case .water(.unexcused(let day)): "the excuse of \(day) taken back"
        case .habit(.added): "a new habit"
        case .habit(.checked(_, let day)): "a habit checked on \(day)"
        case .habit(.unchecked(_, let day)): "a habit unchecked on \(day)"
        case .habit(.deleted): "the removal of a habit"
        case .privacySet(let level, _): "the privacy \(level)"
        }
    }

    /// " of tea" for a drink that is not water (the drink is what the member logged).
    private func of(_ entry: WaterEntry) -> String {
        entry.drink == Drink.waterName ? "" : " of \(entry.drink)"
    }

    /// `HH:MM on YYYY-MM-DD`, the member's wall clock.
    private func when(_ unixMilliseconds: Int64) -> String {
        let zone = water.zones.zone(atUnixMilliseconds: unixMilliseconds)
        return
            "\(zone.clock(atUnixMilliseconds: unixMilliseconds)) on \(water.zones.date(atUnixMilliseconds: unixMilliseconds))"
    }
}
