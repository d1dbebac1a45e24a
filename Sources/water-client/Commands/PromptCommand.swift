import Glibc
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `prompt`: a status line for a shell prompt or tmux, from this computer's files only.
///
/// It reads the server's session and the figures kept beside its status cache, and prints; it
/// never waits for the network. The server is the one commands go to (`WATER_SERVER`, else the
/// last login's), or `--server` before `prompt`: only that server's figures are shown. When
/// what it knows is older than ``refreshAfter``, it starts `sync --quiet` for that server in
/// the background (its own session, output to /dev/null) and returns at once; a stamp file
/// keeps it to one such start per ``refreshAfter``.
enum PromptCommand: ClientCommand {
    static let spec = CommandSpec(
        "prompt", summary: "a short status for a shell prompt or tmux, from this computer only",
        details: """
            Prints today's amount and goal from what this computer last heard (and the drinks
            waiting to be sent): no network, no login check, so it costs nothing in a prompt.
            When that is older than 5 minutes it refreshes it in the background (water-client
            sync --quiet), never waiting for it. --format takes a template with {amount}, {goal},
            {percent}, {left}, {unsent}, {mark} ("*" when something waits to be sent, "?"
            when nothing was heard today) and {overtaken} ("overtaken by Dad" when someone passed
            you on the board today, as the last board or sync heard; empty otherwise).
            """,
        options: [
            OptionSpec("format", "TEMPLATE", "what to print (default: \"💧 {amount}/{goal}{mark}\")"),
            OptionSpec("plain", nil, "no emoji: \"water {amount}/{goal} ml{mark}\""),
        ],
        examples: ["prompt", "prompt --format '{percent}%'", "prompt --format '{amount} ml {overtaken}'"])

    static let refreshAfter: Int64 = 5 * 60_000

    static func run(_ invocation: inout Invocation) throws {
        try run(
            &invocation.arguments, environment: invocation.environment, serverOption: invocation.serverOption,
            json: invocation.json)
    }

    /// Runs `water-client prompt ...` before anything else is set up; nil for any other command
    /// line, and for `prompt --help`.
    static func runEarly(_ commandLine: [String]) -> ExitCode? {
        guard commandLine.count >= 2, commandLine[1] == "prompt",
            !commandLine.contains(where: { $0 == "-h" || $0 == "--help" })
        else { return nil }
        var environment: [String: String] = [:]
        for name in ["HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", ClientConfiguration.serverEnvironmentVariable] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        var arguments = Arguments(commandLine.dropFirst(2))
        do {
            try run(&arguments, environment: environment)
            return .ok
        } catch {
            Terminal.error("water-client: \(error.message); see water-client prompt --help")
            return .usage
        }
    }

    /// Prints the line, or with `json` the figures as one object (null where nothing is known).
    static func run(
        _ arguments: inout Arguments, environment: [String: String], serverOption: String? = nil, json: Bool = false
    ) throws(UsageError) {
        let template = try arguments.option("format")
        let plain = arguments.flag("plain")
        try arguments.finish()
        let now = UnixTime.nowMilliseconds()
        let files = ClientFiles(environment: environment)
        let server = ClientConfiguration.resolveServer(
            option: serverOption, environment: environment, saved: files.defaultServer())?.description
        let cachePath = server.map { StatusCache.path(environment: environment, server: $0) }
        let figures = cachePath.flatMap { LocalFile.readText(PromptFigures.path(besideCache: $0)) }.flatMap(
            PromptFigures.init(text:))
        var values = [
            "amount": "?", "goal": "?", "percent": "?", "left": "?", "unsent": "0", "mark": "?", "overtaken": "",
        ]
        var overtaken: [String] = []
        if let figures, !figures.heard {
            values["unsent"] = "\(figures.unsent)"
            values["mark"] = figures.unsent > 0 ? "*" : "?"
        } else if let figures {
            // A new day since: nothing drunk yet, against the goal last heard.
            let zone = ZoneInfo.system.zone(named: figures.timeZone) ?? Invocation.localZone
            let current = zone.date(atUnixMilliseconds: now).description == figures.date
            let amount = current ? figures.amountMl : 0
            let day = WaterDay(
                date: LocalDate(daysSinceEpoch: 0), amountMillilitres: amount, goalMillilitres: max(figures.goalMl, 1),
                count: 0)
            values = [
                "amount": "\(amount)", "goal": "\(figures.goalMl)", "percent": "\(day.percent)",
                "left": "\(day.remainingMillilitres)", "unsent": "\(figures.unsent)",
                "mark": figures.unsent > 0 ? "*" : current && figures.heardToday ? "" : "?",
            ]
            overtaken = current ? figures.overtaken.map(\.terminalSafe) : []
            values["overtaken"] = overtaken.isEmpty ? "" : "overtaken by " + overtaken.joined(separator: ", ")
        }
        if json {
            Terminal.print(
                JSONOutput.encode(
                    PromptJSON(
                        amountMl: values["amount"].flatMap { Int($0) }, goalMl: values["goal"].flatMap { Int($0) },
                        percent: values["percent"].flatMap { Int($0) }, leftMl: values["left"].flatMap { Int($0) },
                        unsent: values["unsent"].flatMap { Int($0) } ?? 0, heardToday: values["mark"] != "?",
                        overtaken: overtaken)))
        } else {
            let text = template ?? (plain ? "water {amount}/{goal} ml{mark}" : "💧 {amount}/{goal}{mark}")
            Terminal.print(filled(text, values))
        }
        if let server, files.loadSession(for: server) != nil, now - (figures?.updatedAtUnixMs ?? 0) > refreshAfter {
            let stamp = ClientFiles.stateDirectory(environment: environment, server: server) + "/prompt-refresh"
            refreshInBackground(server: server, stamp: stamp, now: now)
        }
    }

    /// `template` with each `{name}` of `values` filled in (an unknown name is left as it is).
    /// By hand, in one pass: the generic `replacing` costs more than the rest of the prompt.
    static func filled(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                let value = values[String(rest[rest.index(after: open)..<close])]
            else {
                result += "{"
                rest = rest[rest.index(after: open)...]
                continue
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Starts `water-client --server SERVER sync --quiet`, detached, unless one was started
    /// recently.
    private static func refreshInBackground(server: String, stamp: String, now: Int64) {
        var info = stat()
        if stat(stamp, &info) == 0, now - Int64(info.st_mtim.tv_sec) * 1000 < refreshAfter { return }
        let fd = open(stamp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        close(fd)
        Subprocess.startDetached("/proc/self/exe", ["water-client", "--server", server, "sync", "--quiet"])
    }
}

/// What `--json prompt` prints: the figures the line is made of, null where nothing is known.
struct PromptJSON: Encodable {
    var amountMl: Int?
    var goalMl: Int?
    var percent: Int?
    var leftMl: Int?
    var unsent: Int
    /// Whether today's figures were heard from the server (else they are a guess, or unknown).
    var heardToday: Bool
    /// Who overtook the member on the board today, as this computer last heard.
    var overtaken: [String]

    enum CodingKeys: CodingKey {
        case amountMl, goalMl, percent, leftMl, unsent, heardToday, overtaken
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Nulls written out, so that a reader finds every key.
        try container.encode(amountMl, forKey: .amountMl)
        try container.encode(goalMl, forKey: .goalMl)
        try container.encode(percent, forKey: .percent)
        try container.encode(leftMl, forKey: .leftMl)
        try container.encode(unsent, forKey: .unsent)
        try container.encode(heardToday, forKey: .heardToday)
        try container.encode(overtaken, forKey: .overtaken)
    }
}
