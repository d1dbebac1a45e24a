import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `nudge`: one line when the member is behind the day's pace, nothing otherwise, for a cron
/// job, a systemd user timer or a shell hook. `nudge on|off` turns it on or off here.
enum NudgeCommand {
    /// What `nudge on` keeps in `$XDG_CONFIG_HOME/water/nudge`.
    struct Settings: Equatable {
        var enabled = true
        /// Waking hours, as minutes of the day in the member's zone: start inclusive, end exclusive.
        /// An end before the start crosses midnight (22:00-06:00, a night shift).
        var start = 8 * 60
        var end = 22 * 60

        init() {}

        init(text: String) {
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "enabled" { enabled = parts[1] == "yes" }
                if parts[0] == "hours", let hours = Settings.hours(parts[1]) { (start, end) = hours }
            }
        }

        var text: String {
            "enabled \(enabled ? "yes" : "no")\nhours \(Settings.clock(start))-\(Settings.clock(end))\n"
        }

        /// "07:30-21:30" as minutes of the day; "22:00-06:00" crosses midnight. Two different times.
        static func hours(_ text: String) -> (Int, Int)? {
            let parts = text.split(separator: "-").map { $0.split(separator: ":").compactMap { Int($0) } }
            guard parts.count == 2,
                parts.allSatisfy({ $0.count == 2 && (0...24).contains($0[0]) && (0..<60).contains($0[1]) })
            else { return nil }
            let (start, end) = (parts[0][0] * 60 + parts[0][1], parts[1][0] * 60 + parts[1][1])
            return start != end && start < 24 * 60 && end <= 24 * 60 ? (start, end) : nil
        }

        /// How far into the waking hours `minute` is, and how long they are; nil outside them.
        func progress(at minute: Int) -> (elapsed: Int, length: Int)? {
            let day = 24 * 60
            let length = (end - start + day) % day
            let elapsed = (minute - start + day) % day
            return elapsed < (length == 0 ? day : length) ? (elapsed, length == 0 ? day : length) : nil
        }

        static func clock(_ minutes: Int) -> String { Format.pad2(minutes / 60) + ":" + Format.pad2(minutes % 60) }
    }

    static func run(_ invocation: inout Invocation, action: String) throws {
        let path = "\(invocation.files.directory)/nudge"
        var settings = LocalFile.readText(path).map(Settings.init(text:)) ?? Settings()
        switch action {
        case "on", "off":
            let hours = try invocation.arguments.option("hours")
            try invocation.arguments.finish()
            settings.enabled = action == "on"
            if let hours {
                guard let parsed = Settings.hours(hours) else {
                    throw UsageError(
                        "--hours takes HH:MM-HH:MM, two different times (22:00-06:00 crosses midnight), got \(hours)")
                }
                (settings.start, settings.end) = parsed
            }
            try LocalFile.writeText(path, settings.text)
            let state: [String: String] = ["enabled": settings.enabled ? "yes" : "no", "hours": hoursText(settings)]
            invocation.outputText(state) {
                settings.enabled
                    ? "nudges are on, between \(Settings.clock(settings.start)) and \(Settings.clock(settings.end)) "
                        + "in your time zone"
                    : "nudges are off on this computer (water-client nudge on turns them back on)"
            }
        default:
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
    }

    private static func hoursText(_ settings: Settings) -> String {
        "\(Settings.clock(settings.start))-\(Settings.clock(settings.end))"
    }

    /// The reminder due now, or nil. Today's figures come from the server when it can be reached
    /// (its clock too: the household's days are the server's), else from this computer's cache.
    static func reminder(_ invocation: Invocation, _ settings: Settings, every: Int, overtaken: Bool = false) throws
        -> String?
    {
        // One reminder per interval on this computer, whichever server it was about.
        let stamp = ClientFiles.stateDirectory(environment: invocation.environment) + "/nudged"
        var now = UnixTime.nowMilliseconds()
        if let client = try invocation.reachableClient() {
            let today = try client.call(WaterV1.GetTodayRequest())
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
        guard let (elapsed, length) = settings.progress(at: minute) else { return nil }
        let expected = Int(day.goalMl) * elapsed / length
        // Behind by at least half a cup: a drink just missed is no reason to interrupt.
        let slack = max(Int(cache.usualCupMl == 0 ? 250 : cache.usualCupMl) / 2, 100)
        let behind = !day.goalMet && expected - Int(day.amountMl) >= slack
        guard behind || news != nil else { return nil }
        if let last = LocalFile.readText(stamp).flatMap({ Int64($0.filter(\.isNumber)) }),
            now - last < Int64(every) * 60_000, now >= last
        {
            return nil
        }
        try LocalFile.writeText(stamp, "\(now)\n")
        guard behind else { return "💧 \(news!); water-client board" }
        return "💧 behind today's pace: \(day.amountMl) of \(day.goalMl) ml by \(Settings.clock(minute)) "
            + "(about \(expected) by now); a glass? water-client log" + (news.map { "; \($0)" } ?? "")
    }

    /// notify-send, where it exists; nothing otherwise (the line was printed anyway).
    private static func notifyDesktop(_ text: String) {
        let searched: String = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let candidates: [String] = searched.split(separator: ":").map { "\($0)/notify-send" }
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else { return }
        Subprocess.run(path, [path, "--app-name=water", "Water", text])
    }
}
