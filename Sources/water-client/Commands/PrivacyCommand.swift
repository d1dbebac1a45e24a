import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `privacy [full|percent|hidden] [--for NAME]`: shows or sets what the rest of the household
/// sees of you (or of a child of yours: a guardian sets it for them, an admin for anyone).
enum PrivacyCommand: ClientCommand {
    static let spec = CommandSpec(
        "privacy", "[LEVEL]", summary: "show or set what the household sees of you on the board",
        details: """
            Shows or sets what the rest of the household sees of you (LEVEL): on the board, its
            live view, --json and the wall (MQTT). full: everything, millilitres too. percent:
            your rank, percent, days met and streak, not your millilitres, drinks or per-day
            amounts. hidden: you are on no one else's board (their ranks are counted without
            you); you still see yourself, ranked among them, marked "only you see this". No
            level hides your diary from admins and from a child's guardians: they read every
            drink with --for, and an admin's household export stays complete. A guardian sets a child's (--for), an
            admin anyone's. Away from the server it waits on this computer and is sent later;
            setting it twice is the same as once.
            """,
        options: [forOption],
        examples: ["privacy", "privacy percent", "privacy full", "privacy hidden --for kim"],
        argumentChoices: Privacy.allCases.map(\.description))

    static func run(_ invocation: inout Invocation) throws {
        let member = try invocation.forMember()
        let word = invocation.arguments.positional()
        try invocation.arguments.finish()
        guard let word else {
            let response = try invocation.client().call(WaterV1.GetSettingsRequest(forMember: member))
            let level = response.settings?.privacy ?? .full
            return invocation.output(response) { line(level, member: member) }
        }
        guard let level = Privacy(name: word) else {
            throw UsageError("privacy takes full, percent or hidden, got \(word)")
        }
        let request = WaterV1.SetPrivacyRequest(
            privacy: WaterV1.Privacy(rawValue: Int32(level.rawValue)), forMember: member)
        // Away from the server it waits in the outbox, like a drink: setting it twice is once.
        let client = try invocation.reachableClient()
        guard let response = try invocation.callOrQueue(client, request, queued: .privacy(request)) else { return }
        invocation.output(response) { line(response.settings?.privacy ?? .full, member: member) }
    }

    /// "privacy percent: others see your rank, ..."; for another member, "kim's privacy ...".
    static func line(_ level: WaterV1.Privacy, member: String = "") -> String {
        let whose = member.isEmpty ? "privacy" : "\(member)'s privacy"
        guard let known = Privacy(rawValue: Int(level.rawValue)) else { return "\(whose): unknown (\(level.rawValue))" }
        return "\(whose) \(known): \(member.isEmpty ? known.othersSee : known.othersSeeOfThem)"
    }
}
