/// A member's reminders, kept by the server with their account (the push token is a secret, as
/// a password is): when water reminders come, and where reminders go. Off by default.
public struct ReminderSettings: Hashable, Sendable {
    /// Water reminders: every `everyMinutes` within `hours` of the member's day while today's
    /// goal is not met and they are behind its pace; never on an excused day. Nil: none.
    public var water: Water?
    /// Chore reminders: when a chore whose turn is the member's is due, and once the next
    /// morning when it is overdue.
    public var chores = false
    /// To Home Assistant: a message on `<prefix>/<member>/reminder` (when the server publishes to
    /// a broker), which an automation turns into a phone notification.
    public var mqtt = false
    /// To an ntfy-compatible push endpoint.
    public var push: PushTarget?

    public struct Water: Hashable, Sendable {
        public var hours: WakingHours
        public var everyMinutes: Int

        public init(hours: WakingHours, everyMinutes: Int) {
            (self.hours, self.everyMinutes) = (hours, everyMinutes)
        }
    }

    /// Where ntfy's publish API is (`https://ntfy.sh/family-water`, or a server of one's own),
    /// and its access token (empty: none).
    public struct PushTarget: Hashable, Sendable {
        public var url: String
        public var token: String

        public init(url: String, token: String) {
            (self.url, self.token) = (url, token)
        }
    }

    /// Every how many minutes, at least and at most.
    public static let everyMinutes = 15...720
    /// A push URL's and a token's longest, in bytes.
    public static let maximumURLBytes = 512
    public static let maximumTokenBytes = 256

    public init(water: Water? = nil, chores: Bool = false, mqtt: Bool = false, push: PushTarget? = nil) {
        (self.water, self.chores, self.mqtt, self.push) = (water, chores, mqtt, push)
    }

    /// Nothing is sent at all.
    public var isOff: Bool { water == nil && !chores }

    /// Somewhere to send them: Home Assistant or a push endpoint.
    public var hasChannel: Bool { mqtt || push != nil }

    /// The hours of the member's day they may be reminded in: the water reminders', or
    /// 08:00-22:00 (with chore reminders alone).
    public var hours: WakingHours { water?.hours ?? .standard }

    /// The minute of the day reminders may start at: the water hours' start, or 08:00.
    public var firstMinute: Int { hours.start }

    /// The settings a request states (`every` 0: no water reminders; `from` and `to` as "HH:MM",
    /// 24:00 as an end; an empty URL: no push), checked: INVALID_ARGUMENT names the field.
    public init(
        every: Int, from: String, to: String, chores: Bool = false, mqtt: Bool, pushURL: String, pushToken: String
    ) throws(DomainError) {
        self.init(chores: chores, mqtt: mqtt)
        if every != 0 {
            guard let start = Self.minute(from) else {
                throw .invalid("from", "reminder hours start at a time HH:MM, like 08:00")
            }
            guard let end = Self.minute(to, end: true), let hours = WakingHours(start: start, end: end) else {
                throw .invalid(
                    "to", "reminder hours end at a time HH:MM other than the start (24:00 as an end), like 21:30")
            }
            water = Water(hours: hours, everyMinutes: every)
        }
        if !pushURL.isEmpty { push = PushTarget(url: pushURL, token: pushToken) }
        self = try checked()
    }

    /// "HH:MM" as a minute of the day; "24:00" only as an end.
    private static func minute(_ text: String, end: Bool = false) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard text.utf8.count == 5, parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<60).contains(minute), (0...24).contains(hour), hour < 24 || (end && minute == 0)
        else { return nil }
        return hour * 60 + minute
    }

    /// These settings, or the first field out of range (INVALID_ARGUMENT, naming it).
    public func checked() throws(DomainError) -> ReminderSettings {
        if let water, !Self.everyMinutes.contains(water.everyMinutes) {
            throw .invalid(
                "every_minutes",
                "reminders come every \(Self.everyMinutes.lowerBound) to \(Self.everyMinutes.upperBound) minutes, "
                    + "got \(water.everyMinutes)")
        }
        if let push {
            let url = push.url
            guard url.utf8.count <= Self.maximumURLBytes, url.hasPrefix("https://") || url.hasPrefix("http://"),
                url.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw .invalid(
                    "push_url",
                    "a push URL is http:// or https:// and at most \(Self.maximumURLBytes) bytes, no spaces")
            }
            // A token sent in clear could be read on the way: plain http only to this machine.
            if url.hasPrefix("http://"), !Self.isLoopback(url.dropFirst("http://".count)) {
                throw .invalid(
                    "push_url", "a push URL not on this machine must be https://, so its token is not sent in clear")
            }
            guard push.token.utf8.count <= Self.maximumTokenBytes,
                push.token.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw .invalid(
                    "push_token", "a push token is at most \(Self.maximumTokenBytes) printable characters, no spaces")
            }
        }
        return self
    }

    /// Whether the URL after its scheme names this machine by a loopback address written out
    /// (127.0.0.0/8 or [::1]): a name is never taken for what it looks like (`127.example.net`).
    private static func isLoopback(_ rest: Substring) -> Bool {
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        if authority.hasPrefix("[") { return authority.prefix { $0 != "]" } == "[::1" }
        let octets = authority.prefix { $0 != ":" }.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }
}
