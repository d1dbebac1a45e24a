import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `privacy [full|percent|hidden]`: shows or sets what the rest of the household sees of you.
enum PrivacyCommand {
    static func run(_ invocation: inout Invocation) throws {
        let word = invocation.arguments.positional()
        try invocation.arguments.finish()
        guard let word else {
            let response = try invocation.client().call(WaterV1.GetSettingsRequest())
            let level = response.settings?.privacy ?? .full
            return invocation.output(response) { line(level) }
        }
        guard let level = Privacy(name: word) else {
            throw UsageError("privacy takes full, percent or hidden, got \(word)")
        }
        let request = WaterV1.SetPrivacyRequest(privacy: WaterV1.Privacy(rawValue: Int32(level.rawValue)))
        // Away from the server it waits in the outbox, like a drink: setting it twice is once.
        let client = try invocation.reachableClient()
        guard let response = try invocation.callOrQueue(client, request, queued: .privacy(request)) else { return }
        invocation.output(response) { line(response.settings?.privacy ?? .full) }
    }

    /// "privacy percent: others see your rank, ...".
    static func line(_ level: WaterV1.Privacy) -> String {
        guard let known = Privacy(rawValue: Int(level.rawValue)) else { return "privacy: unknown (\(level.rawValue))" }
        return "privacy \(known): \(known.othersSee)"
    }
}
