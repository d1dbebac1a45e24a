/// A change to a member's habits, as the journal records it.
public enum HabitMutation: Hashable, Sendable {
    case added(Habit)
    case checked(RecordID, LocalDate)
    case unchecked(RecordID, LocalDate)
    case deleted(RecordID)
}

/// One member's habits, newest first (the seed inserts new habits at index 0).
public struct HabitBook: Hashable, Sendable {
    /// Habits a member keeps at most: a week's check list of 32 rows is already more than anyone
    /// ticks. With one check-in a habit a day, from ``WaterDiary/earliestDate`` to today (about
    /// 9 800 days by 2026, 366 more a year), 32 habits hold at most ~313 000 check-ins: 8 bytes
    /// each in a set at most 3/4 full and at least 3/8, so 3 to 7 MB a member at worst (twice
    /// that while the server holds two states); five habits checked daily for ten years are
    /// 18 250, 0.2 to 0.4 MB.
    public static let maximumCount = 32

    public private(set) var habits: [Habit] = []
    /// Each habit's runs of checked days, kept by `apply` as the water diary keeps its own.
    private var streakRuns: [RecordID: StreakRuns] = [:]

    public init() {}

    /// The habit's streak as of `today` and its best; `isExcused` says which days the member
    /// excused (they neither count nor break).
    public func streak(of id: RecordID, today: LocalDate, isExcused: (LocalDate) -> Bool) -> (current: Int, best: Int) {
        guard let habit = habit(id), let runs = streakRuns[id] else { return (0, 0) }
        let current = runs.current(endingOn: today, today: today) { Self.mark(habit, $0, isExcused) }
        return (current, runs.best)
    }

    private static func mark(_ habit: Habit, _ date: LocalDate, _ isExcused: (LocalDate) -> Bool) -> StreakMark {
        isExcused(date) ? .neutral : habit.checkedDays.contains(date) ? .counts : .breaks
    }

    /// An excuse of `date` was made or taken back: every habit's mark of that day follows.
    public mutating func excuseChanged(on date: LocalDate, was: Bool, isExcused: (LocalDate) -> Bool) {
        guard was != isExcused(date) else { return }
        for habit in habits {
            let checked: StreakMark = habit.checkedDays.contains(date) ? .counts : .breaks
            streakRuns[habit.id]?.change(
                date, from: was ? .neutral : checked, to: was ? checked : .neutral,
                mark: { Self.mark(habit, $0, isExcused) })
        }
    }

    public func habit(_ id: RecordID) -> Habit? {
        habits.first { $0.id == id }
    }

    /// The habit named `name` (case-insensitive), for commands that take a name or an id.
    public func habit(named name: String) -> Habit? {
        habits.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Each habit's 7-day check list for `week`, Monday first.
    public func checkLists(for week: ISOWeek) -> [(habit: Habit, checked: [Bool])] {
        habits.map { habit in (habit, week.days.map { habit.checkedDays.contains($0) }) }
    }

    /// How many check-ins all habits have in `week`: the board's habit column.
    public func checkIns(in week: ISOWeek) -> Int {
        habits.reduce(0) { total, habit in total + habit.checkedDays.filter(week.contains).count }
    }

    // MARK: Validating requests

    public func validateAdd(id: RecordID, name: String, icon: HabitIcon, color: HabitColor, now: Int64)
        throws(DomainError) -> HabitMutation?
    {
        if let existing = habit(id) {
            guard existing.name == name.trimmingWhitespace(), existing.icon == icon, existing.color == color else {
                throw DomainError(.conflict, field: "habit_id", "habit id \(id) is already used for another habit")
            }
            return nil  // a replay: nothing to write
        }
        let name = try SharedText.habitName.checked(name)
        guard habit(named: name) == nil else {
            throw DomainError(.conflict, field: "name", "you already have a habit called \"\(name)\"")
        }
        guard habits.count < Self.maximumCount else {
            throw DomainError(
                .full,
                "at most \(Self.maximumCount) habits a member: you have \(habits.count) already; delete one first")
        }
        return .added(Habit(id: id, name: name, icon: icon, color: color, createdAtUnixMilliseconds: now))
    }

    /// Checks (or with `checked` false, unchecks) `date`, which must not be after `today`.
    public func validateCheck(id: RecordID, date: LocalDate, checked: Bool, today: LocalDate)
        throws(DomainError) -> HabitMutation
    {
        guard habit(id) != nil else { throw Self.unknownHabit(id) }
        try Self.check(date: date, today: today)
        // An old check-in stored before this rule can still be taken back.
        guard date >= WaterDiary.earliestDate || !checked else {
            throw .invalid("date", "\(date) is before 2000; a habit is checked on a day from 2000-01-01 on")
        }
        return checked ? .checked(id, date) : .unchecked(id, date)
    }

    /// The day a check-in is for: not after `today`.
    public static func check(date: LocalDate, today: LocalDate) throws(DomainError) {
        guard date <= today else { throw .invalid("date", "\(date) is in the future; check a habit once it is done") }
    }

    public func validateDelete(id: RecordID) throws(DomainError) -> HabitMutation {
        guard habit(id) != nil else { throw Self.unknownHabit(id) }
        return .deleted(id)
    }

    private static func unknownHabit(_ id: RecordID) -> DomainError {
        DomainError(.notFound, field: "habit_id", "there is no habit \(id)")
    }

    // MARK: Applying

    /// Applies a mutation; `excused` holds the days the member excused, for the streaks.
    public mutating func apply(_ mutation: HabitMutation, excused: [LocalDate: String] = [:]) {
        let isExcused = { (date: LocalDate) in excused[date] != nil }
        switch mutation {
        case .added(let habit):
            guard self.habit(habit.id) == nil else { return }
            habits.insert(habit, at: 0)
            // Days excused before the habit was added bridge its streaks as well.
            let days = habit.checkedDays.union(excused.keys)
            streakRuns[habit.id] = StreakRuns(marked: days.map { ($0, Self.mark(habit, $0, isExcused)) })
        case .checked(let id, let date), .unchecked(let id, let date):
            guard let index = habits.firstIndex(where: { $0.id == id }) else { return }
            let old = Self.mark(habits[index], date, isExcused)
            if case .checked = mutation {
                habits[index].checkedDays.insert(date)
            } else {
                habits[index].checkedDays.remove(date)
            }
            let habit = habits[index]
            streakRuns[id]?.change(
                date, from: old, to: Self.mark(habit, date, isExcused), mark: { Self.mark(habit, $0, isExcused) })
        case .deleted(let id):
            habits.removeAll { $0.id == id }
            streakRuns[id] = nil
        }
    }

    /// What the book holds over its caps (stored before them), one line each: kept, and only
    /// what would add to it is refused.
    public var overCaps: [String] {
        habits.count > Self.maximumCount
            ? ["it holds \(habits.count) habits (at most \(Self.maximumCount) habits a member)"] : []
    }

    /// Names within the characters they were always held to, ids unique (names stored before
    /// ``SharedText``'s bytes and control characters still load).
    public var isValid: Bool {
        Set(habits.map(\.id)).count == habits.count
            && habits.allSatisfy { SharedText.habitName.characters.contains($0.name.count) }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
