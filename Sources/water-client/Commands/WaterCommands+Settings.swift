import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterZoneInfo

/// `goal` and `zone`: the member's daily goal and the time zone their days follow.
extension WaterCommands {
    enum Goal: ClientCommand {
        static let spec = CommandSpec(
            "goal", "[ML]", summary: "show or set your daily goal (500-10000 ml)",
            details:
                "Shows or sets your daily goal (500-10000 ml). A new goal applies from today; past days keep theirs.",
            options: [forOption], examples: ["goal", "goal 2500"])

        static func run(_ invocation: inout Invocation) throws {
            let member = try invocation.forMember()
            let amount = try invocation.arguments.positional().map(amountMl)
            try invocation.arguments.finish()
            let client = try invocation.client()
            guard let amount else {
                let response = try client.call(WaterV1.GetSettingsRequest(forMember: member))
                return invocation.output(response) { "daily goal: \(response.settings?.dailyGoalMl ?? 0) ml" }
            }
            let response = try client.call(WaterV1.SetGoalRequest(dailyGoalMl: amount, forMember: member))
            invocation.output(response) {
                "daily goal: \(response.settings?.dailyGoalMl ?? 0) ml from today on (past days keep theirs)\n"
                    + Format.daySummary(response.today ?? WaterV1.DaySummary())
            }
        }
    }

    /// `zone [ZONE]`: shows your time zone, or moves your days to another (people move, and
    /// travel); every drink keeps its instant.
    enum Zone: ClientCommand {
        static let spec = CommandSpec(
            "zone", "[ZONE]", summary: "show or move your days' time zone",
            details: """
                Shows the IANA time zone your days follow, or moves them to ZONE: every drink keeps
                its moment and counts on the day the new zone gives it. Times you type and times
                shown are in this zone.
                """,
            examples: ["zone", "zone America/New_York"])

        static func run(_ invocation: inout Invocation) throws {
            let zone = invocation.arguments.positional()
            try invocation.arguments.finish()
            let client = try invocation.client()
            if let zone {
                let response = try setZone(zone, client)
                invocation.rememberZone(response.settings?.timeZone ?? "")
                invocation.output(response) {
                    "your days now follow \((response.settings?.timeZone ?? zone).terminalSafe)\n"
                        + Format.daySummary(response.today ?? WaterV1.DaySummary())
                }
            } else {
                let response = try client.call(WaterV1.GetSettingsRequest())
                invocation.output(response) { "your days follow \((response.settings?.timeZone ?? "?").terminalSafe)" }
            }
        }
    }

    /// Sets the member's zone; a name the server does not know is answered with the one nearest
    /// to it (the server's hint is one example, the same for every name).
    private static func setZone(_ zone: String, _ client: WaterClient) throws -> WaterV1.SetTimeZoneResponse {
        do {
            return try client.call(WaterV1.SetTimeZoneRequest(timeZone: zone))
        } catch {
            guard error.code == .invalidArgument, error.violations.contains(where: { $0.field == "time_zone" }),
                let near = Suggestion.closestZone(to: zone, among: ZoneInfo.system.names())
            else { throw error }
            throw WaterError(
                .invalidArgument,
                "\(zone.terminalSafe) is not a time zone the server knows; did you mean \(near)? (water-client zone \(near))",
                violations: error.violations)
        }
    }
}
