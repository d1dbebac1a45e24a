import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Tracker`: the caller's own water diary. No request can name another member: the
/// archive is always the caller's.
struct TrackerService: Service {
    let archives: ArchiveAccess
    /// Where a requested zone is found.
    let timeZones: any TimeZoneSource

    func register(in router: inout Router) {
        router.onLoop(.member, logWater)
        router.onLoop(.member, editWater)
        router.onLoop(.member, deleteWater)
        router.onLoop(.member, undoWater)
        router.onLoop(.member, today)
        router.onLoop(.member, history)
        router.onLoop(.member, setGoal)
        router.onLoop(.member, setPrivacy)
        router.onLoop(.member, setUsualCup)
        router.onLoop(.member, settings)
        router.onLoop(.member, setTimeZone)
        router.onLoop(.member, addCup)
        router.onLoop(.member, removeCup)
    }

    /// Keeps a named cup of the caller's; its name may not be one of the household's drinks.
    func addCup(_ request: WaterV1.AddCupRequest, _ call: CallContext) throws(WaterError) -> WaterV1.AddCupResponse {
        let wanted = request.cup ?? WaterV1.Cup()
        let cup = NamedCup(
            name: wanted.name, amountMillilitres: wanted.amountMl, drink: wanted.drink.isEmpty ? nil : wanted.drink)
        let drinks = try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitOwnReturning(
            call, { archive in Decision([.water(try archive.water.validateAddCup(cup, drinks: drinks))]) },
            result: { archive, _ in WaterV1.AddCupResponse(settings: Wire.settings(archive)) })
    }

    func removeCup(_ request: WaterV1.RemoveCupRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.RemoveCupResponse
    {
        try archives.commitOwnReturning(
            call, { archive in Decision([.water(try archive.water.validateRemoveCup(request.name))]) },
            result: { archive, _ in WaterV1.RemoveCupResponse(settings: Wire.settings(archive)) })
    }

    /// Logs a drink; the same entry id again is a replay and changes nothing (`duplicate`).
    func logWater(_ request: WaterV1.LogWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.LogWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        // No drink named and not the usual one: water (what a client from before drinks sends),
        // with no look at the household's list.
        let drinks =
            request.drink.isEmpty && !request.usualDrink ? nil : try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitOwnReturning(
            call,
            { archive in
                let typed = request.amountMl == 0 ? nil : request.amountMl
                let (amount, drink) =
                    try drinks.map { (drinks) throws(DomainError) in
                        try archive.water.resolveLog(
                            name: request.drink.isEmpty ? nil : request.drink, usual: request.usualDrink, amount: typed,
                            drinks: drinks)
                    } ?? (typed, nil)
                let decision = try archive.water.validateLog(
                    id: id, amountMillilitres: amount, unixMilliseconds: request.atUnixMs == 0 ? nil : request.atUnixMs,
                    drink: drink, now: call.now)
                guard case .log(let mutation) = decision else { return Decision([], note: true) }
                return Decision(.water(mutation), note: false)
            },
            result: { archive, duplicate in
                let entry = archive.water.entry(id)!
                return WaterV1.LogWaterResponse(
                    entry: Wire.entry(entry, in: archive.water, text: request.entryID),
                    day: Wire.day(archive.water.day(archive.water.date(of: entry))),
                    duplicate: duplicate)
            })
    }

    /// Changes a drink's amount or time; the reply has its day before and after when it moved.
    func editWater(_ request: WaterV1.EditWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.EditWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        return try archives.commitOwnReturning(
            call,
            { archive in
                Decision(
                    [
                        .water(
                            try archive.water.validateEdit(
                                id: id, amountMillilitres: request.amountMl == 0 ? nil : request.amountMl,
                                unixMilliseconds: request.atUnixMs == 0 ? nil : request.atUnixMs, now: call.now))
                    ], note: archive.water.entry(id).map(archive.water.date))
            },
            result: { archive, before in
                let entry = archive.water.entry(id)!
                let after = archive.water.date(of: entry)
                let dates = before.map { $0 == after ? [after] : [$0, after] } ?? [after]
                return WaterV1.EditWaterResponse(
                    entry: Wire.entry(entry, in: archive.water), days: dates.map { Wire.day(archive.water.day($0)) })
            })
    }

    func deleteWater(_ request: WaterV1.DeleteWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.DeleteWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        return try deleteEntry(call, respond: WaterV1.DeleteWaterResponse.init) { water in
            try water.validateDelete(id: id)
        }
    }

    func undoWater(_ request: WaterV1.UndoWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.UndoWaterResponse
    {
        try deleteEntry(call, respond: WaterV1.UndoWaterResponse.init) { water in
            try water.validateUndo(now: call.now)
        }
    }

    func today(_ request: WaterV1.GetTodayRequest, _ call: CallContext) throws(WaterError) -> WaterV1.GetTodayResponse {
        let drinks = try archives.read(archives.accounts) { Wire.drinks($0.drinks) }
        return try archives.read(try archives.own(call)) { archive in
            let today = archive.water.today(atUnixMilliseconds: call.now)
            return WaterV1.GetTodayResponse(
                day: Wire.day(archive.water.day(today)),
                entries: archive.water.entries(on: today).map { Wire.entry($0, in: archive.water) },
                settings: Wire.settings(archive), drinks: drinks)
        }
    }

    func history(_ request: WaterV1.GetHistoryRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.GetHistoryResponse
    {
        guard (1...366).contains(request.days) else {
            throw WaterError.invalidField("days", "history covers 1 to 366 days, got \(request.days)")
        }
        return try archives.read(try archives.own(call)) { archive in
            let today = archive.water.today(atUnixMilliseconds: call.now)
            let days = archive.water.days(count: Int(request.days), endingOn: today)
            let entries =
                request.includeEntries
                ? days.reversed().flatMap { archive.water.entries(on: $0.date) }.map {
                    Wire.entry($0, in: archive.water)
                }
                : []
            return WaterV1.GetHistoryResponse(days: days.map(Wire.day), entries: entries)
        }
    }

    func setGoal(_ request: WaterV1.SetGoalRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetGoalResponse
    {
        try archives.commitOwnReturning(
            call, { archive in Decision([.water(try archive.water.validateGoal(request.dailyGoalMl, now: call.now))]) },
            result: { archive, _ in
                WaterV1.SetGoalResponse(
                    settings: Wire.settings(archive),
                    today: Wire.day(archive.water.day(archive.water.today(atUnixMilliseconds: call.now))))
            })
    }

    /// What the others see of the caller. The level they already have writes nothing.
    func setPrivacy(_ request: WaterV1.SetPrivacyRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetPrivacyResponse
    {
        let level = try Wire.privacy(request.privacy, field: "privacy")
        return try archives.commitOwnReturning(
            call, { archive in Decision(archive.privacy == level ? [] : [.privacySet(level)]) },
            result: { archive, _ in WaterV1.SetPrivacyResponse(settings: Wire.settings(archive)) })
    }

    func setUsualCup(_ request: WaterV1.SetUsualCupRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetUsualCupResponse
    {
        // 0 keeps the cup only when a drink is given: alone it is still the mistake it always was.
        let keepsCup = request.usualCupMl == 0 && !request.usualDrink.isEmpty
        let drinks = request.usualDrink.isEmpty ? nil : try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitOwnReturning(
            call,
            { archive in
                let cup = keepsCup ? [] : [MemberMutation.water(try archive.water.validateUsualCup(request.usualCupMl))]
                let drink = try drinks.map {
                    [MemberMutation.water(try archive.water.validateUsualDrink(request.usualDrink, in: $0))]
                }
                return Decision(cup + (drink ?? []))
            },
            result: { archive, _ in WaterV1.SetUsualCupResponse(settings: Wire.settings(archive)) })
    }

    func settings(_ request: WaterV1.GetSettingsRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.GetSettingsResponse
    {
        WaterV1.GetSettingsResponse(settings: try archives.read(try archives.own(call)) { Wire.settings($0) })
    }

    /// Moves the caller's days to another zone: their diary first (what counts days), then their
    /// account (what the member list shows).
    func setTimeZone(_ request: WaterV1.SetTimeZoneRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetTimeZoneResponse
    {
        guard let zone = timeZones.zone(named: request.timeZone) else {
            throw .unknownTimeZone(request.timeZone)
        }
        let response = try archives.commitOwnReturning(
            call, { _ in Decision([.water(.timeZoneSet(zone))]) },
            result: { archive, _ in
                WaterV1.SetTimeZoneResponse(
                    settings: Wire.settings(archive),
                    today: Wire.day(archive.water.day(archive.water.today(atUnixMilliseconds: call.now))))
            })
        try archives.commitReturning(
            archives.accounts,
            { book in
                // The account as it is now (a rename may have come in between).
                guard var account = book.accounts[call.account.id] else { return Decision([]) }
                account.timeZone = zone
                return Decision([.changed(account)])
            }, result: { _, _ in () })
        return response
    }

    /// Deletes the entry `decide` picks, answering with that entry and its day afterwards.
    private func deleteEntry<Response: ProtoMessage>(
        _ call: CallContext, respond: (WaterV1.WaterEntry?, WaterV1.DaySummary?) -> Response,
        decide: (WaterDiary) throws -> WaterMutation
    ) throws(WaterError) -> Response {
        try archives.commitOwnReturning(
            call,
            { archive in
                let mutation = try decide(archive.water)
                var removed: (entry: WaterV1.WaterEntry, date: LocalDate)?
                if case .deleted(let id) = mutation, let entry = archive.water.entry(id) {
                    removed = (Wire.entry(entry, in: archive.water), archive.water.date(of: entry))
                }
                return Decision([.water(mutation)], note: removed)
            },
            result: { archive, removed in
                respond(removed?.entry, removed.map { Wire.day(archive.water.day($0.date)) })
            })
    }
}
