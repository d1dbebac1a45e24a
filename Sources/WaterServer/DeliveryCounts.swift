import WaterSync

/// What the server's senders delivered, for `/metrics`: reminders by channel and outcome, and
/// messages published to the MQTT broker. The senders (WaterPush's ``ReminderChannel``,
/// WaterHome's publisher) add to it from their own threads; `/metrics` reads it. Atomics: no
/// lock, no allocation. One per server, made with its configuration
/// (``ServerConfiguration/deliveries``) and handed to senders through it and ``BoardFeed``.
public final class DeliveryCounts: Sendable {
    public enum Channel: Int, CaseIterable, Sendable {
        case push, mqtt
        var label: String { self == .push ? "push" : "mqtt" }
    }

    public enum Outcome: Int, CaseIterable, Sendable {
        /// Taken by the push endpoint (2xx) or handed to the broker.
        case sent
        /// Not delivered, for good (retries spent, refused, the broker away).
        case failed
        /// Never tried: the sender's queue was full.
        case dropped
        var label: String { ["sent", "failed", "dropped"][rawValue] }
    }

    /// Reminders by `channel.rawValue * outcomes + outcome.rawValue`, then MQTT messages sent
    /// and failed.
    private let counts = AtomicCounters(count: Channel.allCases.count * Outcome.allCases.count + 2)
    private static let mqttSent = Channel.allCases.count * Outcome.allCases.count

    public init() {}

    /// `count` reminders by `channel` ended as `outcome`.
    public func reminders(_ channel: Channel, _ outcome: Outcome, count: Int = 1) {
        counts.add(channel.rawValue * Outcome.allCases.count + outcome.rawValue, count)
    }

    /// One message published to the broker (`sent`), or not; returns `sent`.
    @discardableResult
    public func mqttMessage(sent: Bool) -> Bool {
        counts.add(Self.mqttSent + (sent ? 0 : 1))
        return sent
    }

    func add(to text: inout MetricsText) {
        let reminders = Channel.allCases.flatMap { channel in
            Outcome.allCases.map { outcome in
                (
                    "channel=\"\(channel.label)\",outcome=\"\(outcome.label)\"",
                    counts[channel.rawValue * Outcome.allCases.count + outcome.rawValue]
                )
            }
        }
        text.add(
            "water_reminders_total", .counter, "Reminders by channel and outcome (sent, failed, dropped).", reminders)
        text.add(
            "water_mqtt_messages_total", .counter, "Messages published to the MQTT broker, sent or failed.",
            [("outcome=\"sent\"", counts[Self.mqttSent]), ("outcome=\"failed\"", counts[Self.mqttSent + 1])])
    }
}
