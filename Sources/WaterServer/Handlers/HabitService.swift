import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Habits`: the caller's own habits, or (`for_member`) those of a member the caller
/// may act for (``ArchiveAccess/actingFor(_:_:)``).
struct HabitService: Service {
    let archives: ArchiveAccess

    func register(in router: inout Router) {
        router.onLoop(.member, addHabit, checkHabit, uncheckHabit, deleteHabit, listWeek)
    }

    /// Adds a habit; the same habit id again is a replay and changes nothing.
    func addHabit(_ request: WaterV1.AddHabitRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.AddHabitResponse
    {
        let id = try recordID(request.habitID, field: "habit_id")
        let icon = try habitIcon(request.icon)
        let color = try habitColor(request.color)
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
            { archive in
                Decision(
                    (try archive.habits.validateAdd(id: id, name: request.name, icon: icon, color: color, now: call.now))
                        .map { [.habit($0)] } ?? [])
            },
            result: { archive, _ in WaterV1.AddHabitResponse(habit: archive.habits.habit(id).map(Wire.habit)) })
    }

    func checkHabit(_ request: WaterV1.CheckHabitRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.CheckHabitResponse
    {
        WaterV1.CheckHabitResponse(
            week: try check(
                request.habitID, request.date, checked: true, archives.actingFor(call, request.forMember), call))
    }

    func uncheckHabit(_ request: WaterV1.UncheckHabitRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.UncheckHabitResponse
    {
        WaterV1.UncheckHabitResponse(
            week: try check(
                request.habitID, request.date, checked: false, archives.actingFor(call, request.forMember), call))
    }

    func deleteHabit(_ request: WaterV1.DeleteHabitRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.DeleteHabitResponse
    {
        let id = try recordID(request.habitID, field: "habit_id")
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: archives.actingFor(call, request.forMember)),
            { archive in
                Decision(
                    [.habit(try archive.habits.validateDelete(id: id))], note: archive.habits.habit(id).map(Wire.habit))
            }, result: { _, removed in WaterV1.DeleteHabitResponse(habit: removed) })
    }

    /// Every habit with the days of one ISO week checked (empty: this week).
    func listWeek(_ request: WaterV1.ListHabitWeekRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListHabitWeekResponse
    {
        try archives.read(try archives.archive(of: archives.actingFor(call, request.forMember))) { archive in
            let today = archive.water.today(atUnixMilliseconds: call.now)
            // The household's week, as the board's: "last week" is the same week for both, in
            // every member's zone.
            var week = archives.boards.currentWeek(now: call.now)
            if !request.week.isEmpty {
                guard let parsed = ISOWeek(request.week) else {
                    throw WaterError.invalidField(
                        "week", "a week must be an ISO week like 2026-W49, got \(quotedPeerText(request.week))")
                }
                week = parsed
            }
            return WaterV1.ListHabitWeekResponse(
                week: week.description, dates: week.days.map(\.description),
                habits: archive.habits.checkLists(for: week).map {
                    let streak = archive.habits.streak(of: $0.habit.id, today: today) {
                        archive.water.excused[$0] != nil
                    }
                    return WaterV1.HabitWeek(
                        habit: Wire.habit($0.habit), checked: $0.checked, streakDays: UInt32(streak.current),
                        bestStreakDays: UInt32(streak.best))
                })
        }
    }

    /// Checks or unchecks a day (empty: today) and answers with the habit's week.
    private func check(
        _ habitID: String, _ dateText: String, checked: Bool, _ acting: ActingMember, _ call: CallContext
    ) throws(WaterError) -> WaterV1.HabitWeek {
        let id = try recordID(habitID, field: "habit_id")
        let date = dateText.isEmpty ? nil : try day(dateText, field: "date")
        return try archives.commitReturning(
            for: call,
            try archives.archive(of: acting),
            { archive in
                let today = archive.water.today(atUnixMilliseconds: call.now)
                let day = date ?? today
                return Decision(
                    [.habit(try archive.habits.validateCheck(id: id, date: day, checked: checked, today: today))],
                    note: day)
            },
            result: { archive, day in
                let week = ISOWeek(containing: day)
                let habit = archive.habits.habit(id)!
                return WaterV1.HabitWeek(
                    habit: Wire.habit(habit), checked: week.days.map { habit.checkedDays.contains($0) })
            })
    }
}

/// An icon this version knows, as AddHabit and Import take it.
func habitIcon(_ icon: WaterV1.HabitIcon, field: String = "icon") throws(WaterError) -> HabitIcon {
    guard let known = HabitIcon(rawValue: Int(icon.rawValue)) else {
        throw WaterError.invalidField(
            field, "an icon must be one of \(HabitIcon.allCases.map(\.description).joined(separator: ", "))")
    }
    return known
}

/// A colour this version knows, as AddHabit and Import take it.
func habitColor(_ color: WaterV1.HabitColor, field: String = "color") throws(WaterError) -> HabitColor {
    guard let known = HabitColor(rawValue: Int(color.rawValue)) else {
        throw WaterError.invalidField(
            field, "a colour must be one of \(HabitColor.allCases.map(\.description).joined(separator: ", "))")
    }
    return known
}

extension Wire {
    static func habit(_ habit: Habit) -> WaterV1.Habit {
        WaterV1.Habit(
            habitID: habit.id.description, name: habit.name,
            icon: WaterV1.HabitIcon(rawValue: Int32(habit.icon.rawValue)),
            color: WaterV1.HabitColor(rawValue: Int32(habit.color.rawValue)),
            createdAtUnixMs: habit.createdAtUnixMilliseconds)
    }
}

/// A day as CheckHabit and Import take it: `2026-11-30`.
func day(_ text: String, field: String) throws(WaterError) -> LocalDate {
    guard let date = LocalDate(text) else {
        throw .invalidField(field, "a day must be a date like 2026-11-30, got \(quotedPeerText(text))")
    }
    return date
}
