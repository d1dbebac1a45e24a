import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `nudge`: one line when the member is behind the day's pace, nothing otherwise, for a cron
/// job, a systemd user timer or a shell hook. `nudge on|off` turns it on or off here.
enum NudgeCommand: ClientCommand {
    static let spec = CommandSpec(
        "nudge", summary: "a reminder when you are behind the day's pace (for cron, a timer or a hook)",
        details: """
            Prints a one-line reminder when you have drunk less than the day's goal calls for by
            now across your waking hours (08:00-22:00 in your time zone unless set with nudge on
            --hours), and nothing otherwise: never before or after those hours, never once the
            goal is met, and at most once per --every minutes. --notify sends it as a desktop
            notification (notify-send) as well. --overtaken also says who overtook you on the
            board today (even once the goal is met). nudge off turns it off on this computer.
            """,
        options: [
            OptionSpec("notify", nil, "also as a desktop notification, where notify-send exists"),
            OptionSpec("every", "MINUTES", "at most one reminder per this many minutes (default 60)"),
            OptionSpec("overtaken", nil, "also say who overtook you on the board today"),
        ],
        examples: ["nudge", "nudge --notify --every 90", "nudge --overtaken"])

    /// What `nudge on` keeps in `$XDG_CONFIG_HOME/water/nudge`.
    struct Settings: Equatable {
        var enabled = true
        /// Waking hours, in the member's zone (22:00-06:00, a night shift, crosses midnight).
        var hours = WakingHours.standard

        init() {}

        init(text: String) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "enabled" { enabled = parts[1] == "yes" }
                if parts[0] == "hours", let hours = WakingHours(parts[1]) { self.hours = hours }
            }
        }

        var text: String {
            "enabled \(enabled ? "yes" : "no")\nhours \(hours)\n"
        }
    }

    static func run(_ invocation: inout Invocation) throws {
        let settings = savedSettings(invocation)
        let notify = invocation.arguments.flag("notify")
        let every = try invocation.arguments.integer("every", in: 1...(24 * 60)) ?? 60
        let overtaken = invocation.arguments.flag("overtaken")
        try invocation.arguments.finish()
        guard settings.enabled,
            let reminder = try reminder(invocation, settings, every: every, overtaken: overtaken)
        else { return }
        invocation.outputText(["nudge": reminder]) { reminder }
        if notify { notifyDesktop(reminder) }
    }

    enum On: ClientCommand {
        static let spec = CommandSpec(
            "nudge on", summary: "turn nudges on (and set your waking hours)",
            options: [OptionSpec("hours", "HH:MM-HH:MM", "your waking hours (default 08:00-22:00)")],
            examples: ["nudge on --hours 07:30-21:30"])

        static func run(_ invocation: inout Invocation) throws {
            try turn(on: true, &invocation)
        }
    }

    enum Off: ClientCommand {
        static let spec = CommandSpec("nudge off", summary: "turn nudges off on this computer", examples: ["nudge off"])

        static func run(_ invocation: inout Invocation) throws {
            try turn(on: false, &invocation)
        }
    }

    /// Where `nudge on` keeps its settings on this computer.
    private static func settingsPath(_ invocation: Invocation) -> String {
        "\(invocation.files.directory)/nudge"
    }

    private static func savedSettings(_ invocation: Invocation) -> Settings {
        LocalFile.readText(settingsPath(invocation)).map(Settings.init(text:)) ?? Settings()
    }

    /// `nudge on [--hours HH:MM-HH:MM]` and `nudge off`.
    private static func turn(on: Bool, _ invocation: inout Invocation) throws {
        var settings = savedSettings(invocation)
        let hours = try invocation.arguments.option("hours")
        try invocation.arguments.finish()
        settings.enabled = on
        if let hours {
            guard let parsed = WakingHours(hours) else {
                throw UsageError(
                    "--hours takes HH:MM-HH:MM, two different times (22:00-06:00 crosses midnight), got \(hours)")
            }
            settings.hours = parsed
        }
        try LocalFile.writeText(settingsPath(invocation), settings.text)
        let state: [String: String] = ["enabled": settings.enabled ? "yes" : "no", "hours": "\(settings.hours)"]
        invocation.outputText(state) {
            settings.enabled
                ? "nudges are on, between \(WakingHours.clock(settings.hours.start)) and "
                    + "\(WakingHours.clock(settings.hours.end)) in your time zone"
                : "nudges are off on this computer (water-client nudge on turns them back on)"
        }
    }

    /// The reminder due now, or nil. Today's figures come from the server when it can be reached
    /// (its clock too: the household's days are the server's), else from this computer's cache.
    static func reminder(_ invocation: Invocation, _ settings: Settings, every: Int, overtaken: Bool = false) throws
        -> String?
    {
        // One reminder per interval on this computer, whichever server it was about.
        let stamp = ClientFiles.stateDirectory(environment: invocation.environment) + "/nudged"
        var now = UnixTime.nowMilliseconds()
        var remindedByServer = ""
        if let client = try invocation.reachableClient() {
            let today = try client.call(WaterV1.GetTodayRequest())
            remindedByServer = (try? client.call(WaterV1.GetRemindersRequest()))?.lastReminded ?? ""
            if client.connection.server.serverTimeUnixMs != 0 { now = client.connection.server.serverTimeUnixMs }
            invocation.remember(today)
            if overtaken, let board = (try? client.call(WaterV1.GetBoardRequest()))?.board {
                invocation.updateCache { $0.record(board: board) }
            }
        }
        guard let cache = invocation.cachedStatus() else { return nil }
        let zone = try ZoneInfo.system.zone(named: cache.timeZone) ?? invocation.memberZone(nil)
        let day = cache.today(adding: invocation.waitingWrites(), zone: zone, now: now).summary
        let seconds = now / 1000
        let minute = Int((((seconds + zone.offsetSeconds(atUnixSeconds: seconds)) % 86_400) + 86_400) % 86_400 / 60)
        // An excused day (sick, travelling) is never nudged, not even with board news.
        guard !day.excused else { return nil }
        // With --overtaken: who passed the member on the board today, as a nudge of its own.
        let passed = overtaken ? cache.overtaken(on: day.date).map(\.terminalSafe) : []
        let news = passed.isEmpty ? nil : "\(passed.joined(separator: ", ")) overtook you on the board today"
        guard settings.hours.progress(at: minute) != nil else { return nil }
        // Behind by at least half a cup (the server's reminders' rule), unless the server already
        // reminded the member today, on their phone: the desktop then stays quiet about water.
        let expected = settings.hours.behind(
            amountMillilitres: Int(day.amountMl), goalMillilitres: Int(day.goalMl), minute: minute,
            usualCupMillilitres: Int(cache.usualCupMl == 0 ? 250 : cache.usualCupMl))
        let behind = expected != nil && remindedByServer != day.date
        guard behind || news != nil else { return nil }
        if let last = LocalFile.readText(stamp).flatMap({ Int64($0.filter(\.isNumber)) }),
            now - last < Int64(every) * 60_000, now >= last
        {
            return nil
        }
        try LocalFile.writeText(stamp, "\(now)\n")
        guard behind else { return "💧 \(news!); water-client board" }
        return "💧 behind today's pace: \(day.amountMl) of \(day.goalMl) ml by \(WakingHours.clock(minute)) "
            + "(about \(expected ?? 0) by now); a glass? water-client log" + (news.map { "; \($0)" } ?? "")
    }

    /// notify-send, where it exists; nothing otherwise (the line was printed anyway).
    private static func notifyDesktop(_ text: String) {
        let searched: String = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let candidates: [String] = searched.split(separator: ":").map { "\($0)/notify-send" }
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else { return }
        Subprocess.run(path, [path, "--app-name=water", "Water", text])
    }
}
