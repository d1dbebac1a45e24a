import WaterCore
import WaterProtocol
import WaterStore

/// What importing a history adds: what the archive does not have yet, so that importing the
/// same history twice changes nothing.
enum Import {
    /// Entries per part of an import committed on its own (``parts(of:)``).
    static let entriesPerPart = 1000

    /// `history` as parts to commit one after another: its entries, ``entriesPerPart`` at a
    /// time, then its goals, settings and habits, in the order one decision took them (the
    /// entries first, so each day's goal is recorded as the archive has it when they land).
    static func parts(of history: WaterV1.MemberHistory) -> [WaterV1.MemberHistory] {
        var parts: [WaterV1.MemberHistory] = []
        var start = 0
        while start < history.entries.count {
            let end = min(start + entriesPerPart, history.entries.count)
            parts.append(WaterV1.MemberHistory(member: history.member, entries: Array(history.entries[start..<end])))
            start = end
        }
        parts.append(
            WaterV1.MemberHistory(
                member: history.member, settings: history.settings, goals: history.goals, habits: history.habits,
                excused: history.excused))
        return parts
    }

    /// What `history` adds to `archive`, checked as the live calls check it (LogWater,
    /// SetUsualCup, AddCup, AddHabit, CheckHabit; cups and the usual drink against `drinks`): a file cannot bring in what the commands would refuse.
    static func mutations(
        _ history: WaterV1.MemberHistory, into archive: MemberArchive, drinks: DrinkList, now: Int64
    ) throws -> ([MemberMutation], WaterV1.ImportResponse) {
        var plan = Plan()
        try checkRoom(for: history.entries, in: archive, now: now)
        try takeEntries(history.entries, archive: archive, now: now, into: &plan)
        try takeGoals(history.goals, archive: archive, now: now, into: &plan)
        let today = archive.water.today(atUnixMilliseconds: now)
        try takeSettings(history.settings, archive: archive, drinks: drinks, today: today, into: &plan)
        try takeHabits(history.habits, archive: archive, today: today, into: &plan)
        try takeExcused(history.excused, archive: archive, today: today, into: &plan)
        return (plan.mutations, plan.counts)
    }

    /// The mutations an import decided on so far, and what they add.
    private struct Plan {
        var mutations: [MemberMutation] = []
        var counts = WaterV1.ImportResponse()

        /// Adds `mutations`, each counted in `count`: what the reply says was added is what was.
        mutating func add(_ mutations: [MemberMutation], counted count: WritableKeyPath<WaterV1.ImportResponse, UInt32>)
        {
            self.mutations += mutations
            counts[keyPath: count] += UInt32(mutations.count)
        }
    }

    /// Refuses the whole history, before any of its drinks is checked or decided, when those the
    /// archive does not have yet would put a day, a calendar year or the archive over its cap
    /// (``WaterLimits``): counted from their ids and times alone.
    private static func checkRoom(for entries: [WaterV1.WaterEntry], in archive: MemberArchive, now: Int64) throws {
        var new: Set<RecordID> = []
        var dates: [LocalDate] = []
        for entry in entries {
            let id = try recordID(entry.entryID, field: "entries.entry_id")
            guard archive.water.entry(id) == nil, new.insert(id).inserted else { continue }
            try within("entries") { () throws(DomainError) in try WaterDiary.check(time: entry.atUnixMs, now: now) }
            dates.append(archive.water.zones.date(atUnixMilliseconds: entry.atUnixMs))
        }
        do {
            try archive.water.checkRoom(adding: dates, field: "at_unix_ms")
        } catch {
            throw WaterError(
                DomainError(
                    error.kind, field: error.field.map { "entries.\($0)" } ?? "entries",
                    "\(error.message); nothing of this import was added"))
        }
    }

    /// Drinks the archive does not have yet, by id.
    private static func takeEntries(
        _ entries: [WaterV1.WaterEntry], archive: MemberArchive, now: Int64, into plan: inout Plan
    ) throws {
        // The import's own ids: the archive's are found in its index (a set of all of them
        // took 16 bytes and more a drink, for each part of an import).
        var seen: Set<RecordID> = []
        for entry in entries {
            let id = try recordID(entry.entryID, field: "entries.entry_id")
            guard !seen.contains(id), archive.water.entry(id) == nil else { continue }
            let decision = try within("entries") { () throws(DomainError) in
                try archive.water.validateLog(
                    id: id, amountMillilitres: entry.amountMl, unixMilliseconds: entry.atUnixMs,
                    drink: try Drink.logged(
                        name: entry.drink, factorHundredths: Int32(clamping: entry.factorHundredths)),
                    now: now)
            }
            guard case .log(let mutation) = decision else { continue }
            plan.add([.water(mutation)], counted: \.entriesAdded)
            seen.insert(id)
        }
    }

    /// The days' goals as goal changes: only those after the archive's own last change, so
    /// nothing it has is rewritten and a second import adds nothing. A day from 2000 to
    /// tomorrow (a drink's day, with the clock skew allowed): one change a day at most, so the
    /// changes are bounded by the days since 2000.
    private static func takeGoals(
        _ goals: [WaterV1.DailyGoal], archive: MemberArchive, now: Int64, into plan: inout Plan
    ) throws {
        let lastChange = archive.water.goals.changes.last?.from
        let tomorrow = archive.water.today(atUnixMilliseconds: now).adding(days: 1)
        var previous: Int32?
        for goal in goals.sorted(by: { $0.date < $1.date }) {
            guard let date = LocalDate(goal.date) else {
                throw WaterError.invalidField(
                    "goals.date", "a goal's date must be a date like 2026-11-30, got \(quotedPeerText(goal.date))")
            }
            guard date >= WaterDiary.earliestDate, date <= tomorrow else {
                throw WaterError.invalidField(
                    "goals.date", "a goal's date must be a day from 2000-01-01 to tomorrow, got \(date)")
            }
            guard WaterLimits.dailyGoalMillilitres.contains(goal.goalMl) else {
                throw WaterError.invalidField(
                    "goals.goal_ml", "a daily goal must be between 500 and 10000 ml, got \(goal.goalMl)")
            }
            defer { previous = goal.goalMl }
            guard goal.goalMl != previous, lastChange.map({ date > $0 }) ?? true,
                archive.water.goals.goalMillilitres(on: date) != goal.goalMl
            else { continue }
            plan.add([.water(.goalSet(goal.goalMl, from: date))], counted: \.goalsAdded)
        }
    }

    /// The usual cup and drink, the named cups, and a privacy that keeps more to the member:
    /// checked as SetUsualCup and AddCup check them, against the household's `drinks`.
    private static func takeSettings(
        _ settings: WaterV1.Settings?, archive: MemberArchive, drinks: DrinkList, today: LocalDate,
        into plan: inout Plan
    ) throws {
        guard let settings else { return }
        var water = archive.water
        var decided: [WaterMutation] = []
        if settings.usualCupMl != 0, settings.usualCupMl != water.usualCupMillilitres {
            decided.append(
                try within("settings") { () throws(DomainError) in try water.validateUsualCup(settings.usualCupMl) })
        }
        if !settings.usualDrink.isEmpty, settings.usualDrink != water.usualDrink {
            decided.append(
                try within("settings") { () throws(DomainError) in
                    try water.validateUsualDrink(settings.usualDrink, in: drinks)
                })
        }
        for wire in settings.cups {
            let cup = NamedCup(
                name: wire.name, amountMillilitres: wire.amountMl, drink: wire.drink.isEmpty ? nil : wire.drink)
            guard water.cup(named: cup.name) != cup else { continue }
            let saved = try within("settings") { () throws(DomainError) in
                try water.validateAddCup(cup, drinks: drinks)
            }
            water.apply(saved)
            decided.append(saved)
        }
        plan.mutations += decided.map { .water($0) }
        // A file's privacy is taken only when it keeps more to the member than full: an export
        // from before privacy (or one made while full) never shows a member more than they chose.
        if settings.privacy != .full {
            let level = try Wire.privacy(settings.privacy, field: "settings.privacy")
            if level != archive.privacy { plan.mutations.append(.privacySet(level, from: today)) }
        }
    }

    /// Habits the archive does not have yet, oldest first, and check-ins it does not have.
    private static func takeHabits(
        _ histories: [WaterV1.HabitHistory], archive: MemberArchive, today: LocalDate, into plan: inout Plan
    ) throws {
        var habits = archive.habits
        // Oldest first, as they were added: the book keeps the newest first, and so does an export.
        let oldestFirst = histories.enumerated().sorted {
            let (a, b) = ($0.element.habit?.createdAtUnixMs ?? 0, $1.element.habit?.createdAtUnixMs ?? 0)
            return a != b ? a < b : $0.offset > $1.offset
        }.map(\.element)
        for stored in oldestFirst {
            guard let habit = stored.habit else { continue }
            let id = try recordID(habit.habitID, field: "habits.habit.habit_id")
            if habits.habit(id) == nil {
                let icon = try habitIcon(habit.icon, field: "habits.habit.icon")
                let color = try habitColor(habit.color, field: "habits.habit.color")
                let book = habits
                let add = try within("habits.habit") { () throws(DomainError) in
                    try book.validateAdd(id: id, name: habit.name, icon: icon, color: color, now: habit.createdAtUnixMs)
                }
                guard let added = add else { continue }
                plan.add([.habit(added)], counted: \.habitsAdded)
                habits.apply(added)
            }
            for text in stored.checkedDates {
                let date = try day(text, field: "habits.checked_dates")
                let book = habits
                let check = try within("habits.checked_dates", field: true) { () throws(DomainError) in
                    try book.validateCheck(id: id, date: date, checked: true, today: today)
                }
                guard habits.habit(id)?.checkedDays.contains(date) == false else { continue }
                plan.add([.habit(check)], counted: \.checkinsAdded)
                habits.apply(check)
            }
        }
    }

    /// Days not excused yet, by the live rules but for how far back (a history of years may
    /// hold old ones), the limit of 14 in any 28 included.
    private static func takeExcused(
        _ days: [WaterV1.ExcusedDate], archive: MemberArchive, today: LocalDate, into plan: inout Plan
    ) throws {
        var excused: [String: [LocalDate]] = [:]
        for stored in days {
            let date = try day(stored.date, field: "excused.date")
            guard archive.water.excused[date] == nil else { continue }
            excused[stored.reason, default: []].append(date)
        }
        var water = archive.water
        for (reason, dates) in excused.sorted(by: { $0.key < $1.key }) {
            let decided = try within("excused") { () throws(DomainError) in
                try water.validateExcuse(dates, reason: reason, today: today, checkRange: false)
            }
            for mutation in decided { water.apply(mutation) }
            plan.add(decided.map { .water($0) }, counted: \.excusedAdded)
        }
    }
}

extension Import {
    /// The reminders an import sets: the file's interval, hours, chores and MQTT, checked as
    /// SetReminders checks them, with the member's push endpoint kept (an export never carries
    /// it); nil when the file has none, or they are the member's already.
    static func reminders(_ wire: WaterV1.ReminderSettings?, keeping old: ReminderSettings) throws(WaterError)
        -> ReminderSettings?
    {
        guard let wire else { return nil }
        var settings = try within("reminders") { () throws(DomainError) in
            try ReminderSettings(
                every: Int(min(wire.everyMinutes, 100_000)), from: wire.from, to: wire.to, chores: wire.chores,
                mqtt: wire.mqtt, pushURL: "", pushToken: "")
        }
        settings.push = old.push
        return settings == old ? nil : settings
    }
}

/// Runs a domain rule on part of an import, naming the field at fault by its path in the
/// import (`entries.amount_ml`); `field: true` when `path` is the field itself.
private func within<Result>(_ path: String, field: Bool = false, _ body: () throws(DomainError) -> Result)
    throws(WaterError) -> Result
{
    do {
        return try body()
    } catch {
        var error = error
        error.field = field ? path : error.field.map { "\(path).\($0)" }
        throw WaterError(error)
    }
}
