import WaterCore

extension WaterV1.ReminderSettings {
    /// The names `SetRemindersRequest.fields` may hold.
    public static let fieldNames: Set<String> = [
        "every_minutes", "from", "to", "chores", "mqtt", "push_url", "push_token",
    ]

    /// These settings with the `fields` of `change` taken from it (all of them when `fields` is
    /// empty), as SetReminders merges a partial change into what the server keeps: water
    /// reminders with no hours take 08:00-22:00, and hours named while `every_minutes` is 0 turn
    /// them on every 60 minutes. The push token is `change`'s when named, else empty (the
    /// server keeps its own for an unchanged URL). INVALID_ARGUMENT names `fields` for a name
    /// not in ``fieldNames``.
    public func applying(_ change: Self, fields: [String]) throws(DomainError) -> Self {
        guard !fields.isEmpty else { return change }
        if let unknown = fields.first(where: { !Self.fieldNames.contains($0) }) {
            throw .invalid(
                "fields",
                "a reminders field is one of every_minutes, from, to, chores, mqtt, push_url and push_token, "
                    + "got \(quotedPeerText(unknown))")
        }
        let named = Set(fields)
        var merged = self
        merged.pushToken = ""
        if named.contains("every_minutes") { merged.everyMinutes = change.everyMinutes }
        if named.contains("from") { merged.from = change.from }
        if named.contains("to") { merged.to = change.to }
        if named.contains("chores") { merged.chores = change.chores }
        if named.contains("mqtt") { merged.mqtt = change.mqtt }
        if named.contains("push_url") { merged.pushUrl = change.pushUrl }
        if named.contains("push_token") { merged.pushToken = change.pushToken }
        if merged.everyMinutes == 0, named.contains("from") || named.contains("to"), !named.contains("every_minutes") {
            merged.everyMinutes = 60
        }
        if merged.everyMinutes != 0, merged.from.isEmpty || merged.to.isEmpty {
            let hours = WakingHours.standard
            if merged.from.isEmpty { merged.from = WakingHours.clock(hours.start) }
            if merged.to.isEmpty { merged.to = WakingHours.clock(hours.end) }
        }
        return merged
    }
}
