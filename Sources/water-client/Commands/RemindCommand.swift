import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `remind`: the reminders the server sends (to a phone through Home Assistant or an ntfy
/// endpoint). Alone it shows them; with options it changes them; `remind off` stops them.
enum RemindCommand: ClientCommand {
    static let spec = CommandSpec(
        "remind", "[off]", summary: "show or set the reminders the server sends to your phone",
        details: """
            The server reminds you of water every --every minutes within --hours of your day
            (your time zone; quiet outside, across midnight allowed), only while today's goal
            is not met and you are behind its pace by half a cup, never on an excused day. It
            sends them to Home Assistant (--mqtt: a message on PREFIX/YOU/reminder, when the
            server publishes to a broker) and to an ntfy-compatible push endpoint (--push URL,
            its access token read from --push-token-file: it never shows again). A child's
            reminders go to their guardians' phones. --chores on also reminds you when a chore
            that is your turn is due, and the next morning if it is not done yet. `remind off`
            stops them all; options not given keep their values. Away from the server a change
            waits on this computer and is sent later, changing only what you named.
            """,
        options: [
            OptionSpec("every", "MINUTES", "a reminder at most every MINUTES (15-720, default 60)"),
            OptionSpec("hours", "HH:MM-HH:MM", "when you may be reminded (default 08:00-22:00)"),
            OptionSpec(
                "chores", "on|off", "also when a chore that is your turn is due, and the next morning if not done"),
            OptionSpec("mqtt", "on|off", "send them to Home Assistant through the server's MQTT broker"),
            OptionSpec("push", "URL", "send them to this ntfy-compatible endpoint (https://; none: off)"),
            OptionSpec("push-token-file", "FILE", "the endpoint's access token: the first line of FILE"),
            forOption,
        ],
        examples: [
            "remind", "remind --every 90 --hours 08:00-21:00 --push https://ntfy.sh/our-water-123",
            "remind --mqtt on", "remind --chores on", "remind off", "remind --every 120 --for kim",
        ],
        argumentChoices: ["off"])

    static func run(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        let every = try invocation.arguments.integer("every", in: 1...100_000)
        let hours = try invocation.arguments.option("hours")
        let chores = try invocation.arguments.option("chores")
        let mqtt = try invocation.arguments.option("mqtt")
        let push = try invocation.arguments.option("push")
        let tokenFile = try invocation.arguments.option("push-token-file")
        let word = invocation.arguments.positional()
        try invocation.arguments.finish()
        if let word, word != "off" { throw UsageError("remind takes off, or options; got \(word)") }
        for (name, value) in [("chores", chores), ("mqtt", mqtt)] {
            if let value, value != "on", value != "off" { throw UsageError("--\(name) takes on or off, got \(value)") }
        }
        if let hours, WakingHours(hours) == nil {
            throw UsageError("--hours takes two different times, like 08:00-21:30, got \(hours)")
        }
        let token = try tokenFile.map { path in
            guard let text = LocalFile.readText(path) else {
                throw UsageError("--push-token-file \(path): cannot read it")
            }
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        let changing =
            word != nil || every != nil || hours != nil || chores != nil || mqtt != nil || push != nil || token != nil
        let client = try invocation.reachableClient()
        guard changing else {
            guard let client else {
                throw WaterError(.unavailable, "the server cannot be reached: remind shows what it keeps")
            }
            let response = try client.call(WaterV1.GetRemindersRequest(forMember: member))
            return invocation.output(response) { describe(response.reminders, lastReminded: response.lastReminded) }
        }
        // Only the fields named change (SetRemindersRequest.fields): the rest stay as the server
        // keeps them, so the change can wait in the outbox away from it.
        var settings = WaterV1.ReminderSettings()
        var fields: [String] = []
        func set(_ field: String, _ change: (inout WaterV1.ReminderSettings) -> Void) {
            change(&settings)
            fields.append(field)
        }
        if word == "off" {
            set("every_minutes") { $0.everyMinutes = 0 }
            set("chores") { $0.chores = false }
        }
        if let every { set("every_minutes") { $0.everyMinutes = UInt32(every) } }
        if let chosen = hours.flatMap(WakingHours.init) {
            set("from") { $0.from = WakingHours.clock(chosen.start) }
            set("to") { $0.to = WakingHours.clock(chosen.end) }
        }
        if let chores { set("chores") { $0.chores = chores == "on" } }
        if let mqtt { set("mqtt") { $0.mqtt = mqtt == "on" } }
        if let push { set("push_url") { $0.pushUrl = push == "none" ? "" : push } }
        if let token { set("push_token") { $0.pushToken = token } }
        // With nothing on yet, a channel alone turns water reminders on (every 60 minutes): only
        // the server knows, so only when it answers; a change that waits names what was given.
        if word == nil, every == nil, hours == nil, chores == nil, let client {
            let kept =
                try client.call(WaterV1.GetRemindersRequest(forMember: member)).reminders ?? WaterV1.ReminderSettings()
            if kept.everyMinutes == 0 && !kept.chores { set("every_minutes") { $0.everyMinutes = 60 } }
        }
        let request = WaterV1.SetRemindersRequest(reminders: settings, forMember: member, fields: fields)
        guard let response = try invocation.callOrQueue(client, request, queued: .reminders(request)) else { return }
        invocation.output(response) { describe(response.reminders, lastReminded: "") }
    }

    /// "water every 60 minutes, 08:00-22:00, while behind the day's pace; to Home Assistant and
    /// https://ntfy.sh/... (with a token)", or that there are none.
    static func describe(_ settings: WaterV1.ReminderSettings?, lastReminded: String) -> String {
        let settings = settings ?? WaterV1.ReminderSettings()
        guard settings.everyMinutes != 0 || settings.chores else {
            return "reminders: off (water-client remind --every 60 --push URL)"
        }
        var channels: [String] = []
        if settings.mqtt { channels.append("Home Assistant (MQTT)") }
        if !settings.pushUrl.isEmpty {
            channels.append(settings.pushUrl.terminalSafe + (settings.pushTokenSet ? " (with a token)" : ""))
        }
        let water =
            settings.everyMinutes == 0
            ? "no water reminders"
            : "water every \(settings.everyMinutes) minutes, \(settings.from.terminalSafe)-"
                + "\(settings.to.terminalSafe), while behind the day's pace"
        return "reminders: \(water)" + (settings.chores ? ", chores when due" : "") + "; "
            + (channels.isEmpty ? "nowhere yet (--mqtt on, --push URL)" : "to " + channels.joined(separator: " and "))
            + (lastReminded.isEmpty ? "" : "\nlast reminded \(lastReminded.terminalSafe)")
    }
}
