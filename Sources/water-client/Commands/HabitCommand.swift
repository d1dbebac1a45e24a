import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `habit add NAME [--icon ICON] [--color COLOR] | ls [--week last|YYYY-Www] |
/// check NAME|ID [--day WHEN] | uncheck NAME|ID [--day WHEN] | rm NAME|ID`.
enum HabitCommand {
    enum Add: ClientCommand {
        static let spec = CommandSpec(
            "habit add", "NAME", summary: "add a habit",
            details: """
                Adds a habit to check off day by day.
                Icons: \(habitIconNames.joined(separator: " ")).
                Colours: \(habitColorNames.joined(separator: " ")).
                """,
            options: [
                forOption,
                OptionSpec("icon", "ICON", "its icon (default alarm)", choices: habitIconNames),
                OptionSpec("color", "COLOR", "its colour (default blue)", choices: habitColorNames),
            ],
            examples: ["habit add Read --icon book --color green"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let iconName = try invocation.arguments.option("icon") ?? "alarm"
            let colorName = try invocation.arguments.option("color") ?? "blue"
            var words: [String] = []
            while let word = invocation.arguments.positional() { words.append(word) }
            try invocation.arguments.finish()
            guard !words.isEmpty else { throw UsageError("habit add needs a name") }
            // Unknown names go to the server as unknown values, so the refusal is the server's.
            let icon = WaterV1.HabitIcon(rawValue: Int32(HabitIcon(name: iconName)?.rawValue ?? -1))
            let color = WaterV1.HabitColor(rawValue: Int32(HabitColor(name: colorName)?.rawValue ?? -1))
            let client = try invocation.client()
            let response = try client.call(
                WaterV1.AddHabitRequest(
                    habitID: invocation.newID(),
                    name: words.joined(separator: " "), icon: icon, color: color, forMember: member))
            invocation.output(response) { "added the habit \((response.habit?.name ?? "").terminalSafe)" }
        }
    }

    enum List: ClientCommand {
        static let spec = CommandSpec(
            "habit ls", summary: "your habits and a week's check list",
            options: [forOption, weekOption],
            examples: ["habit ls", "habit ls --week last"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let weekOption = try invocation.arguments.option("week")
            try invocation.arguments.finish()
            let client = try invocation.client()
            let week = try Invocation.week(weekOption) {
                try client.call(WaterV1.ListHabitWeekRequest(forMember: member)).week
            }
            let response = try client.call(WaterV1.ListHabitWeekRequest(week: week, forMember: member))
            invocation.updateCache(for: member) { $0.habits = response.habits.compactMap(\.habit) }
            invocation.output(response) { render(response, for: member) }
        }
    }

    enum Check: ClientCommand {
        static let spec = CommandSpec(
            "habit check", "NAME|ID", summary: "check a habit off for a day (not a future one)",
            options: [forOption, dayOption],
            examples: ["habit check Read", "habit check Read --day yesterday"])

        static func run(_ invocation: inout Invocation) throws {
            try mark("check", &invocation, week: \.week) { member, id, date in
                let request = WaterV1.CheckHabitRequest(habitID: id, date: date, forMember: member)
                return (request, .habitCheck(request))
            }
        }
    }

    enum Uncheck: ClientCommand {
        static let spec = CommandSpec(
            "habit uncheck", "NAME|ID", summary: "take a day's check back",
            options: [forOption, dayOption],
            examples: ["habit uncheck Read --day 2026-11-29"])

        static func run(_ invocation: inout Invocation) throws {
            try mark("uncheck", &invocation, week: \.week) { member, id, date in
                let request = WaterV1.UncheckHabitRequest(habitID: id, date: date, forMember: member)
                return (request, .habitUncheck(request))
            }
        }
    }

    enum Remove: ClientCommand {
        static let spec = CommandSpec(
            "habit rm", "NAME|ID", summary: "remove a habit", options: [forOption], examples: ["habit rm Read"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let target = try invocation.arguments.onlyPositional(missing: "habit rm needs a habit's name or id")
            let client = try invocation.client()
            let response = try client.call(
                WaterV1.DeleteHabitRequest(
                    habitID: try resolve(target, client, invocation, for: member), forMember: member))
            invocation.output(response) { "removed the habit \((response.habit?.name ?? "").terminalSafe)" }
        }
    }

    /// `habit check` and `habit uncheck`: the request `made` for the member, the habit's id and
    /// the day, sent (or queued away from the server); shows the week it changed.
    private static func mark<Request: UnaryRPCRequest>(
        _ action: String, _ invocation: inout Invocation, week: (Request.Response) -> WaterV1.HabitWeek?,
        made: (_ member: String, _ id: String, _ date: String) -> (Request, QueuedWrite)
    ) throws {
        let member = try invocation.forMember()
        let dayOption = try invocation.arguments.option("day")
        let target = try invocation.arguments.onlyPositional(missing: "habit \(action) needs a habit's name or id")
        let client = try invocation.reachableClient()
        let id = try resolve(target, client, invocation, for: member)
        let zone = try invocation.zone(for: member, client)
        let (request, queued) = made(member, id, try day(dayOption, zone: zone))
        guard let response = try invocation.callOrQueue(client, request, queued: queued) else { return }
        invocation.output(response) { weekLine(week(response) ?? WaterV1.HabitWeek()) }
    }

    /// `--day` as the API takes it, `today` and `yesterday` in the member's zone.
    private static func day(_ text: String?, zone: MemberTimeZone) throws(UsageError) -> String {
        guard let day = When.day(text, now: UnixTime.nowMilliseconds(), zone: zone) else {
            throw UsageError("--day takes today, yesterday or a date like 2026-11-30, got \(text ?? "")")
        }
        return day
    }

    /// A habit's name (any case) or id; away from the server, among the habits this computer
    /// last heard of.
    private static func resolve(
        _ text: String, _ client: WaterClient?, _ invocation: Invocation, for member: String
    ) throws -> String {
        if RecordID(text) != nil { return text }
        let habits: [WaterV1.Habit]
        if let client {
            habits = try client.call(WaterV1.ListHabitWeekRequest(forMember: member)).habits.compactMap(\.habit)
            invocation.updateCache(for: member) { $0.habits = habits }
        } else {
            // The habits this computer knows are the caller's.
            try invocation.refuseOffline(for: member)
            habits = invocation.cachedStatus()?.habits ?? []
        }
        guard
            let habit = habits.first(where: {
                $0.name.lowercased() == text.lowercased() || Format.shortID($0.habitID) == text.lowercased()
            })
        else {
            throw WaterError(
                client == nil ? .unavailable : .notFound,
                client == nil
                    ? "the server cannot be reached, and this computer knows no habit called \(text)"
                    : "\(member.isEmpty ? "you have" : "\(member) has") no habit called \(text); "
                        + "see water-client habit ls\(Format.forHint(member))")
        }
        return habit.habitID
    }

    /// The week's check list; the hint for no habits names `member` when acting for them.
    static func render(_ response: WaterV1.ListHabitWeekResponse, for member: String) -> String {
        guard !response.habits.isEmpty else {
            return "no habits yet: water-client habit add read\(Format.forHint(member)) --icon book --color green"
        }
        // The names' column is wide enough for the longest name and for the week's label; the
        // label is padded before it is made bold, so no escape sequence is ever cut.
        // Names are shown with their control characters neutralised (an older server took them).
        let label = "Week \(response.week.terminalSafe)"
        let names = response.habits.map { ($0.habit?.name ?? "").terminalSafe }
        // In terminal cells: an emoji or a Japanese name is two a character.
        let nameWidth = max(names.map(\.displayWidth).max() ?? 0, label.count - 3)
        let header = Format.bold(label) + String(repeating: " ", count: 3 + nameWidth - label.count) + "  "
        let rows = zip(response.habits, names).map { week, name in
            let habit = week.habit ?? WaterV1.Habit()
            return "\(Format.icon(habit.icon)) \(name)"
                + String(repeating: " ", count: nameWidth - name.displayWidth) + "  "
                + week.checked.map { coloured($0 ? "■" : "·", habit.color) }.joined(separator: "  ")
                + "  streak \(week.streakDays), best \(week.bestStreakDays)"
        }
        return ([header + "Mo Tu We Th Fr Sa Su"] + rows).joined(separator: "\n")
    }

    private static func weekLine(_ week: WaterV1.HabitWeek) -> String {
        let habit = week.habit ?? WaterV1.Habit()
        return "\(Format.icon(habit.icon)) \(habit.name.terminalSafe): "
            + zip(["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"], week.checked)
            .map { "\($0.0) \(coloured($0.1 ? "■" : "·", habit.color))" }.joined(separator: "  ")
    }

    /// The habit's theme colour, on a terminal.
    private static func coloured(_ text: String, _ color: WaterV1.HabitColor) -> String {
        guard Terminal.usesColour, let theme = HabitColor(rawValue: Int(color.rawValue)) else { return text }
        let (red, green, blue) = theme.rgb
        return "\u{1B}[38;2;\(red);\(green);\(blue)m\(text)\u{1B}[0m"
    }
}
