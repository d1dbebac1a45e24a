import WaterCodec
import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Tracker`: the caller's own water diary, or (`for_member`) that of a member the
/// caller may act for (``ArchiveAccess/actingFor(_:_:)``): a child of theirs, or anyone for an
/// admin. GetYear alone may read any member's year, as the board already shows everyone's days.
struct TrackerService: Service {
    let archives: ArchiveAccess
    /// Where a requested zone is found.
    let timeZones: any TimeZoneSource
    /// Where a year and a history are read, off the loop.
    let reads: ReadPool

    func register(in router: inout Router) {
        router.onLoop(
            .member, logWater, editWater, deleteWater, undoWater, today, setGoal, setPrivacy, setUsualCup, settings,
            setTimeZone, addCup, removeCup)
        router.offLoop(.member, pool: reads, history, year)
    }

    /// January 1st to December 31st of one year (default: the member's current one) of the
    /// caller or another member, for water or for one of their habits: one day summary a day
    /// from the diary's day totals (366 at most), never a scan of the entries.
    func year(_ request: WaterV1.GetYearRequest, _ call: CallContext) throws(WaterError) -> WaterV1.GetYearResponse {
        let (account, archive) = try yearMember(request.forMember, call)
        return try archives.read(archive) { (archive) throws(WaterError) in
            // Another member's year shows what their board row shows, unless the caller may act
            // for them (an admin, a guardian), who sees it whole as with `today --for`. The board
            // shows no one's habits by name: a habit's year is for those alone.
            let mayActFor = ActingMember.may(call.account, actFor: account)
            if !request.habit.isEmpty, !mayActFor {
                throw WaterError(
                    .permissionDenied,
                    "a habit's year is \(account.username)'s own: only they, an admin or their guardian may see it")
            }
            let amountsHidden: Bool
            switch mayActFor ? .full : archive.privacy {
            case .full: amountsHidden = false
            case .percent: amountsHidden = true
            case .hidden:
                throw WaterError(
                    .permissionDenied, "\(account.username) keeps their figures to themselves (privacy hidden)")
            }
            let today = archive.water.today(atUnixMilliseconds: call.now)
            let number = request.year == 0 ? today.components.year : Int(request.year)
            guard let year = CalendarYear(number), number <= today.components.year else {
                throw WaterError.invalidField(
                    "year",
                    number > today.components.year && CalendarYear(number) != nil
                        ? "\(number) has not started yet (today is \(today))"
                        : "a year is 2000 to 9999, got \(request.year)")
            }
            var habit: Habit?
            if !request.habit.isEmpty {
                habit =
                    RecordID(request.habit).flatMap(archive.habits.habit) ?? archive.habits.habit(named: request.habit)
                guard habit != nil else {
                    let whose = account.id == call.account.id ? "you have" : "\(account.username) has"
                    throw WaterError(
                        .notFound,
                        "\(whose) no habit called \(quotedPeerText(request.habit)); see water-client habit ls")
                }
            }
            let membership = Membership(of: account, water: archive.water)
            let days = year.days.map { date in
                let day = archive.water.day(date)
                guard let habit else {
                    return Wire.yearDay(membership.marked(day), future: date > today, amountsHidden: amountsHidden)
                }
                // A check-in shows the member was there, whatever their account's dates say.
                let checked = habit.checkedDays.contains(date)
                return WaterV1.YearDay(
                    date: date.description, percent: checked ? 100 : 0, goalMet: checked, future: date > today,
                    excused: day.isExcused, notAMember: !checked && membership.reason(on: date) != nil)
            }
            return WaterV1.GetYearResponse(
                year: UInt32(year.year), username: account.username, displayName: account.displayName,
                habit: habit?.name ?? "", today: today.description, days: days,
                amountsHidden: habit == nil && amountsHidden)
        }
    }

    /// The member GetYear reads: the caller, or any member of the household by username.
    private func yearMember(_ username: String, _ call: CallContext) throws(WaterError)
        -> (Account, Archive<MemberArchive>)
    {
        guard !username.isEmpty, username != call.account.username else {
            return (call.account, try archives.own(call))
        }
        let found = try archives.read(archives.accounts) { $0.account(named: username) }
        guard let found, let archive = archives.store.member(found.id) else {
            throw WaterError(.notFound, "there is no member called \(quotedPeerText(username)) in this household")
        }
        return (found, archive)
    }

    /// Keeps a named cup of the caller's; its name may not be one of the household's drinks.
    func addCup(_ request: WaterV1.AddCupRequest, _ call: CallContext) throws(WaterError) -> WaterV1.AddCupResponse {
        let wanted = request.cup ?? WaterV1.Cup()
        let cup = NamedCup(
            name: wanted.name, amountMillilitres: wanted.amountMl, drink: wanted.drink.isEmpty ? nil : wanted.drink)
        let acting = try archives.actingFor(call, request.forMember)
        let drinks = try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: acting),
            { archive in Decision([.water(try archive.water.validateAddCup(cup, drinks: drinks))]) },
            result: { archive, _ in WaterV1.AddCupResponse(settings: Wire.settings(archive)) })
    }

    func removeCup(_ request: WaterV1.RemoveCupRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.RemoveCupResponse
    {
        try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
            { archive in Decision([.water(try archive.water.validateRemoveCup(request.name))]) },
            result: { archive, _ in WaterV1.RemoveCupResponse(settings: Wire.settings(archive)) })
    }

    /// Logs a drink; the same entry id again is a replay and changes nothing (`duplicate`).
    func logWater(_ request: WaterV1.LogWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.LogWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        let acting = try archives.actingFor(call, request.forMember)
        let makers = acting.madeBy == 0 ? [:] : [acting.madeBy: acting.caller.username]
        // No drink named and not the usual one: water (what a client from before drinks sends),
        // with no look at the household's list.
        let drinks =
            request.drink.isEmpty && !request.usualDrink ? nil : try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: acting),
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
                    drink: drink, madeBy: acting.madeBy, now: call.now)
                guard case .log(let mutation) = decision else { return Decision([], note: true) }
                return Decision(.water(mutation), note: false)
            },
            result: { archive, duplicate in
                let entry = archive.water.entry(id)!
                return WaterV1.LogWaterResponse(
                    entry: Wire.entry(
                        entry, in: archive.water, text: request.entryID,
                        makers: entry.madeBy == acting.madeBy ? makers : archives.makers(of: [entry])),
                    day: Wire.day(archive.water.day(archive.water.date(of: entry))),
                    duplicate: duplicate)
            })
    }

    /// Changes a drink's amount or time; the reply has its day before and after when it moved.
    func editWater(_ request: WaterV1.EditWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.EditWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
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
                    entry: Wire.entry(entry, in: archive.water, makers: archives.makers(of: [entry])),
                    days: dates.map { Wire.day(archive.water.day($0)) })
            })
    }

    func deleteWater(_ request: WaterV1.DeleteWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.DeleteWaterResponse
    {
        let id = try recordID(request.entryID, field: "entry_id")
        return try deleteEntry(
            call,
            try archives.actingFor(call, request.forMember), respond: WaterV1.DeleteWaterResponse.init
        ) { water in
            try water.validateDelete(id: id)
        }
    }

    func undoWater(_ request: WaterV1.UndoWaterRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.UndoWaterResponse
    {
        try deleteEntry(call, try archives.actingFor(call, request.forMember), respond: WaterV1.UndoWaterResponse.init)
        {
            water in
            try water.validateUndo(now: call.now)
        }
    }

    func today(_ request: WaterV1.GetTodayRequest, _ call: CallContext) throws(WaterError) -> WaterV1.GetTodayResponse {
        let acting = try archives.actingFor(call, request.forMember)
        let drinks = try archives.read(archives.accounts) { Wire.drinks($0.drinks) }
        let (archive, names) = (try archives.archive(of: acting), archives.usernames())
        return try archives.read(archive) { archive in
            let today = archive.water.today(atUnixMilliseconds: call.now)
            return WaterV1.GetTodayResponse(
                day: Wire.day(archive.water.day(today)),
                entries: archive.water.entries(on: today).map { Wire.entry($0, in: archive.water, makers: names) },
                settings: Wire.settings(archive), drinks: drinks, streak: Wire.streak(archive.water, today: today)
            )
        }
    }

    func history(_ request: WaterV1.GetHistoryRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.GetHistoryResponse
    {
        guard (1...366).contains(request.days) else {
            throw WaterError.invalidField("days", "history covers 1 to 366 days, got \(request.days)")
        }
        let acting = try archives.actingFor(call, request.forMember)
        let names = request.includeEntries ? archives.usernames() : [:]
        return try archives.read(try archives.archive(of: acting)) { (archive) throws(WaterError) in
            let today = archive.water.today(atUnixMilliseconds: call.now)
            let membership = Membership(of: acting.member, water: archive.water)
            let days = archive.water.days(count: Int(request.days), endingOn: today).map(membership.marked)
            // Sized from the day totals before anything is built: a reply that could not be sent
            // is refused at the cost of counting, not of building it first.
            let count = request.includeEntries ? days.reduce(0) { $0 + $1.count } : 0
            guard count <= Self.maximumEntriesPerReply else {
                throw WaterError(
                    .resourceExhausted,
                    "those \(request.days) days hold \(count) drinks, more than one reply carries (at most "
                        + "\(Self.maximumEntriesPerReply)); ask for fewer days, or use export for everything")
            }
            let entries =
                request.includeEntries
                ? days.reversed().flatMap { archive.water.entries(on: $0.date) }.map {
                    Wire.entry($0, in: archive.water, makers: names)
                }
                : []
            return WaterV1.GetHistoryResponse(
                days: days.map(Wire.day), entries: entries, streak: Wire.streak(archive.water, today: today))
        }
    }

    /// The most drinks one GetHistory lists: about 100 bytes each on the wire, so the reply
    /// stays well inside the 1 MiB frame (a family's year is 2 000-4 000).
    static let maximumEntriesPerReply = 8_000

    func setGoal(_ request: WaterV1.SetGoalRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetGoalResponse
    {
        try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
            { archive in Decision([.water(try archive.water.validateGoal(request.dailyGoalMl, now: call.now))]) },
            result: { archive, _ in
                WaterV1.SetGoalResponse(
                    settings: Wire.settings(archive),
                    today: Wire.day(archive.water.day(archive.water.today(atUnixMilliseconds: call.now))))
            })
    }

    /// What the others see of the caller (or of a child, set by a guardian). The level they
    /// already have writes nothing.
    func setPrivacy(_ request: WaterV1.SetPrivacyRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetPrivacyResponse
    {
        let level = try Wire.privacy(request.privacy, field: "privacy")
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
            { archive in
                guard archive.privacy != level else { return Decision([]) }
                return Decision([.privacySet(level, from: archive.water.today(atUnixMilliseconds: call.now))])
            },
            result: { archive, _ in WaterV1.SetPrivacyResponse(settings: Wire.settings(archive)) })
    }

    func setUsualCup(_ request: WaterV1.SetUsualCupRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetUsualCupResponse
    {
        // 0 keeps the cup only when a drink is given: alone it is still the mistake it always was.
        let keepsCup = request.usualCupMl == 0 && !request.usualDrink.isEmpty
        let acting = try archives.actingFor(call, request.forMember)
        let drinks = request.usualDrink.isEmpty ? nil : try archives.read(archives.accounts) { $0.drinks }
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: acting),
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
        let archive = try archives.archive(of: try archives.actingFor(call, request.forMember))
        return WaterV1.GetSettingsResponse(settings: try archives.read(archive) { Wire.settings($0) })
    }

    /// Moves the caller's days to another zone: their diary first (what counts days), then their
    /// account (what the member list shows).
    func setTimeZone(_ request: WaterV1.SetTimeZoneRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetTimeZoneResponse
    {
        guard let zone = timeZones.zone(named: request.timeZone) else {
            throw .unknownTimeZone(request.timeZone)
        }
        let response = try archives.commitReturning(
            for: call,
            try archives.own(call), { _ in Decision([.water(.timeZoneSet(zone, movedAtUnixMilliseconds: call.now))]) },
            result: { archive, _ in
                WaterV1.SetTimeZoneResponse(
                    settings: Wire.settings(archive),
                    today: Wire.day(archive.water.day(archive.water.today(atUnixMilliseconds: call.now))))
            })
        try archives.commitReturning(
            for: call,
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
        _ call: CallContext, _ acting: ActingMember, respond: (WaterV1.WaterEntry?, WaterV1.DaySummary?) -> Response,
        decide: (WaterDiary) throws -> WaterMutation
    ) throws(WaterError) -> Response {
        try archives.commitReturning(
            for: call,
            try archives.archive(of: acting),
            { archive in
                let mutation = try decide(archive.water)
                var removed: (entry: WaterV1.WaterEntry, date: LocalDate)?
                if case .deleted(let id) = mutation, let entry = archive.water.entry(id) {
                    removed = (
                        Wire.entry(entry, in: archive.water, makers: archives.makers(of: [entry])),
                        archive.water.date(of: entry)
                    )
                }
                return Decision([.water(mutation)], note: removed)
            },
            result: { archive, removed in
                respond(removed?.entry, removed.map { Wire.day(archive.water.day($0.date)) })
            })
    }
}
