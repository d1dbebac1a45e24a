import WaterCore
import WaterProtocol

extension Router {
    /// `water.v1.Habits`: the caller's own habits; no request can reach another member's.
    mutating func registerHabits() {
        unary(WaterV1.AddHabitRequest.self, .member) { request, context, reply in
            let id: RecordID
            let icon: HabitIcon
            let color: HabitColor
            do throws(WaterError) {
                id = try recordID(request.habitID, field: "habit_id")
                icon = try habitIcon(request.icon)
                color = try habitColor(request.color)
            } catch {
                return reply(.failure(error))
            }
            context.commitOwn(
                { archive in
                    (try archive.habits.validateAdd(
                        id: id, name: request.name, icon: icon, color: color, now: context.now))
                        .map { [.habit($0)] } ?? []
                },
                result: { archive in
                    WaterV1.AddHabitResponse(habit: archive.habits.habit(id).map(Wire.habit))
                }, reply: reply)
        }

        unary(WaterV1.CheckHabitRequest.self, .member) { request, context, reply in
            check(request.habitID, request.date, checked: true, context) {
                reply($0.map { WaterV1.CheckHabitResponse(week: $0) })
            }
        }

        unary(WaterV1.UncheckHabitRequest.self, .member) { request, context, reply in
            check(request.habitID, request.date, checked: false, context) {
                reply($0.map { WaterV1.UncheckHabitResponse(week: $0) })
            }
        }

        unary(WaterV1.DeleteHabitRequest.self, .member) { request, context, reply in
            let id: RecordID
            do throws(WaterError) { id = try recordID(request.habitID, field: "habit_id") } catch {
                return reply(.failure(error))
            }
            var removed: WaterV1.Habit?
            context.commitOwn(
                { archive in
                    removed = archive.habits.habit(id).map(Wire.habit)
                    return [.habit(try archive.habits.validateDelete(id: id))]
                }, result: { _ in WaterV1.DeleteHabitResponse(habit: removed) }, reply: reply)
        }

        immediate(WaterV1.ListHabitWeekRequest.self, .member) { request, context throws(WaterError) in
            try context.read(try context.ownArchive()) { archive in
                let today = archive.water.today(atUnixMilliseconds: context.now)
                var week = ISOWeek(containing: today)
                if !request.week.isEmpty {
                    guard let parsed = ISOWeek(request.week) else {
                        throw WaterError.invalidField(
                            "week", "must be an ISO week like 2026-W49, got \"\(request.week.prefix(20))\"")
                    }
                    week = parsed
                }
                return WaterV1.ListHabitWeekResponse(
                    week: week.description, dates: week.days.map(\.description),
                    habits: archive.habits.checkLists(for: week).map {
                        WaterV1.HabitWeek(habit: Wire.habit($0.habit), checked: $0.checked)
                    })
            }
        }
    }
}

/// Checks or unchecks a day (empty: today) and answers with the habit's week.
private func check(
    _ habitID: String, _ dateText: String, checked: Bool, _ context: CallContext,
    _ reply: @escaping @Sendable (Result<WaterV1.HabitWeek, WaterError>) -> Void
) {
    let id: RecordID
    do throws(WaterError) { id = try recordID(habitID, field: "habit_id") } catch { return reply(.failure(error)) }
    var date: LocalDate?
    if !dateText.isEmpty {
        guard let parsed = LocalDate(dateText) else {
            return reply(
                .failure(.invalidField("date", "must be a date like 2026-11-30, got \"\(dateText.prefix(20))\"")))
        }
        date = parsed
    }
    var day = LocalDate(daysSinceEpoch: 0)
    context.commitOwn(
        { archive in
            let today = archive.water.today(atUnixMilliseconds: context.now)
            day = date ?? today
            return [.habit(try archive.habits.validateCheck(id: id, date: day, checked: checked, today: today))]
        },
        result: { archive in
            let week = ISOWeek(containing: day)
            let habit = archive.habits.habit(id)!
            return WaterV1.HabitWeek(
                habit: Wire.habit(habit), checked: week.days.map { habit.checkedDays.contains($0) })
        }, reply: reply)
}

private func habitIcon(_ icon: WaterV1.HabitIcon) throws(WaterError) -> HabitIcon {
    guard let known = HabitIcon(rawValue: Int(icon.rawValue)) else {
        throw WaterError.invalidField(
            "icon", "must be one of \(HabitIcon.allCases.map(\.description).joined(separator: ", "))")
    }
    return known
}

private func habitColor(_ color: WaterV1.HabitColor) throws(WaterError) -> HabitColor {
    guard let known = HabitColor(rawValue: Int(color.rawValue)) else {
        throw WaterError.invalidField(
            "color", "must be one of \(HabitColor.allCases.map(\.description).joined(separator: ", "))")
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
