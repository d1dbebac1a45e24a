import Dispatch
import WaterCore
import WaterLog
import WaterServer
import WaterSync

/// Keeps the household's board in Home Assistant: each member's figures, the board, its leader
/// and the discovery configs, retained on the MQTT broker (``HomeAssistantMessages``).
///
/// It hears of the board only through the server's ``BoardFeed``: of a change once it is durable,
/// and reads durable state only, so the wall never shows a write before its reply, nor one a
/// failed sync rolled back. `water-server serve --mqtt` puts ``maker(_:)`` in the server's
/// configuration.
///
/// ## Who owns what
///
/// - **The event loop** only calls ``changed()`` after a write: one lock, and at most one
///   `asyncAfter` per coalescing window. It never waits for the broker or for a build.
/// - **``queue``** (serial) builds the messages from the board (``BoardFeed/members()``, the
///   same ``WeeklyBoard`` the API serves), compares them with ``published`` and hands what
///   changed to the connection. ``published`` (what the broker holds from us) is touched only
///   there; its lock is for the compiler.
/// - **``connection``** owns the libmosquitto handle and its thread (``MQTTConnection``).
///
/// Changes are coalesced: a build runs at most ``coalescing`` after a change, and once per burst.
/// A timer on whole minutes rebuilds too, so a day's or week's turn (at midnight in each
/// member's zone) is published within a second of it. Each connect sends everything again.
public final class HomePublisher: BoardPublisher {
    static let coalescing: DispatchTimeInterval = .milliseconds(300)

    private let feed: BoardFeed
    private let messages: HomeAssistantMessages
    private let connection: MQTTConnection
    private let queue = DispatchQueue(label: "water.home-publisher", qos: .utility)
    private let minutes: SendableTimer
    /// A build is scheduled and has not started: more changes need none of their own.
    private let isBuildPending = Locked(false)
    /// Set on ``queue`` by ``stop()``: builds after it publish nothing.
    private let isStopped = Locked(false)
    /// What the broker holds from us, by topic; and whether it must all be sent again (set on
    /// ``queue`` at each connect).
    private let published = Locked<(messages: [String: [UInt8]], isStale: Bool)>(([:], true))
    /// Told (on the connection's thread) when the broker connects or goes.
    let connectionChanged = Signal()
    /// Told (on the connection's thread) of a topic an earlier run left retained on the broker.
    private let found: RetainedFound

    /// What the server's configuration takes to publish to `settings`' broker
    /// (``ServerConfiguration/boardPublishers``).
    public static func maker(_ settings: MQTTSettings) -> BoardPublisherMaker {
        { feed, logger in try HomePublisher(settings: settings, feed: feed, logger: logger) }
    }

    /// - Throws: ``MQTTError`` for settings libmosquitto refuses.
    init(settings: MQTTSettings, feed: BoardFeed, logger: Logger) throws(MQTTError) {
        self.feed = feed
        messages = HomeAssistantMessages(prefix: settings.prefix)
        let connectionChanged = self.connectionChanged
        let found = RetainedFound()
        self.found = found
        let messages = self.messages
        connection = try MQTTConnection(
            settings: settings, logger: logger, retainedTopics: messages.ownRetainedTopics,
            retainedFound: { topic, payload in
                if messages.isOwnRetained(topic, payload) { found.fire(topic) }
            }, connectionChanged: { _ in connectionChanged.fire() })
        minutes = SendableTimer(source: DispatchSource.makeTimerSource(queue: queue))
    }

    /// The broker's address, and whether it is connected: for `water-server status`.
    var status: (broker: String, isConnected: Bool) { ("\(connection.settings.broker)", connection.isConnected) }

    /// `mqtt connected HOST:PORT` or `mqtt disconnected HOST:PORT`, as `water-server status` reads it.
    public var statusLine: String? {
        let (broker, isConnected) = status
        return "mqtt \(isConnected ? "connected" : "disconnected") \(broker)"
    }

    public var statusChanged: Signal { connectionChanged }

    /// Connects (on the connection's own thread) and starts listening for changes.
    public func start() {
        connectionChanged.listen { [weak self] in
            guard let self else { return }
            queue.async {
                // A broker that restarted may have lost what it held: everything goes again.
                if self.connection.isConnected { self.published.withLock { $0.isStale = true } }
                self.publishChanges()
            }
        }
        feed.onChange { [weak self] in self?.changed() }
        // What a run before this one left (a member removed meanwhile) is cleared like any other.
        found.listen { [weak self] topic in
            guard let self else { return }
            queue.async {
                self.published.withLock { published in
                    if published.messages[topic] == nil, published.messages.count < 10_000 {
                        published.messages[topic] = []
                    }
                }
                self.changed()
            }
        }
        let untilNextMinute = 60_000 - Int(feed.now() % 60_000) + 100
        minutes.source.schedule(
            deadline: .now() + .milliseconds(untilNextMinute), repeating: .seconds(60), leeway: .milliseconds(500))
        minutes.source.setEventHandler { [weak self] in self?.publishChanges() }
        minutes.source.activate()
        connection.start()
    }

    /// Says `offline` and disconnects. No build runs after it, so none uses the handle it frees.
    public func stop() {
        minutes.source.cancel()
        queue.sync { isStopped.withLock { $0 = true } }
        connection.stop()
    }

    /// Something on the board may have changed (from the thread that committed it).
    func changed() {
        let schedule = isBuildPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + Self.coalescing) { [weak self] in self?.publishChanges() }
    }

    /// On ``queue``: builds every message and sends those the broker does not hold yet; clears
    /// (an empty retained payload) those of members gone or renamed.
    private func publishChanges() {
        isBuildPending.withLock { $0 = false }
        // While the broker is away nothing is sent (or queued): the connect sends it all.
        guard !isStopped.withLock({ $0 }), connection.isConnected else { return }
        // The wall shows durable writes only: a board that saw one still being synced (which
        // may yet be rolled back) is built again once it is.
        guard
            let (fresh, kept) = feed.readDurably({ build(now: feed.now()) }, orElse: { [weak self] in self?.changed() })
        else { return }
        let (old, isStale) = published.withLock { $0 }
        var holds: [String: [UInt8]] = [:]
        var sentAll = true
        for (topic, payload) in fresh {
            if (!isStale && old[topic] == payload)
                || feed.deliveries.mqttMessage(sent: connection.publish(topic, payload))
            {
                holds[topic] = payload
            } else {
                sentAll = false
            }
        }
        for (topic, payload) in old where fresh[topic] == nil {
            if kept.contains(topic) {
                holds[topic] = payload
            } else if !feed.deliveries.mqttMessage(sent: connection.publish(topic, [])) {
                holds[topic] = payload  // cleared next time
                sentAll = false
            }
        }
        published.withLock { $0 = (holds, isStale && !sentAll) }
    }

    /// Every message of the board now, and the topics to keep as they are: those of members whose
    /// archive cannot be read just now (protected), who are not gone.
    private func build(now: Int64) -> (messages: [String: [UInt8]], kept: Set<String>) {
        let (readable, unavailable) = feed.members()
        let week = feed.currentWeek(now: now)
        let board = WeeklyBoard(members: readable.map(\.member), week: week, order: .progress, now: now)
        let byUsername = Dictionary(readable.map { ($0.member.username, $0.member) }) { first, _ in first }
        // The wall is no one's screen: it gets the board as no member (no hidden member on it,
        // ranks without them), the same filter every member's board goes through.
        let members = board.view(for: nil).compactMap { row -> HomeMember? in
            guard !row.hiddenSince, let member = byUsername[row.standing.username] else { return nil }
            let today = member.water.day(member.water.today(atUnixMilliseconds: now))
            return HomeMember(standing: row.standing, today: today, privacy: Self.privacy(of: member))
        }
        var kept: Set<String> = []
        for account in unavailable {
            kept.insert(messages.stateTopic(account.username))
            for sensor in HomeAssistantMessages.memberSensors {
                kept.insert(messages.configTopic(account.username, sensor.field))
            }
        }
        return (messages.messages(week: week, members: members), kept)
    }

    /// What `member` lets the wall show: the level they chose (`water-client privacy`).
    static func privacy(of member: BoardMember) -> Privacy {
        member.privacy
    }
}

/// A retained topic found on the broker, told from the connection's thread.
final class RetainedFound: Sendable {
    private let listener = Locked<(@Sendable (String) -> Void)?>(nil)

    func listen(_ body: @escaping @Sendable (String) -> Void) {
        listener.withLock { $0 = body }
    }

    func fire(_ topic: String) {
        listener.withLock { $0 }?(topic)
    }
}

/// Reminders to Home Assistant: each on the recipient's reminder topic, from the publisher's
/// queue (the scheduler never waits for the broker). Not sent while the broker is away: a
/// reminder is for now, not for later.
extension HomePublisher: ReminderChannel {
    public func send(_ reminders: [Reminder]) {
        let wanted = reminders.filter(\.recipient.reminders.mqtt)
        guard !wanted.isEmpty else { return }
        queue.async { [self] in
            guard !isStopped.withLock({ $0 }) else { return }
            for reminder in wanted {
                let sent = connection.publish(
                    messages.reminderTopic(reminder.recipient.username),
                    HomeAssistantMessages.json(HomeAssistantMessages.ReminderMessage(reminder)), retain: false)
                feed.deliveries.reminders(.mqtt, feed.deliveries.mqttMessage(sent: sent) ? .sent : .failed)
            }
        }
    }
}
