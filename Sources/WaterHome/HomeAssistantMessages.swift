import FoundationEssentials
import WaterCore

/// One member as the wall shows them: their line on this week's board, their today, and what
/// they let it show.
struct HomeMember: Sendable {
    var standing: BoardStanding
    /// The member's own today, in their zone (it may lie outside the household's week).
    var today: WaterDay
    /// What they let the wall show: ``Privacy/hidden`` publishes nothing of them at all.
    var privacy: Privacy
}

/// The retained messages that make the board appear in Home Assistant, as topic and payload:
/// pure values, no I/O, so the same figures always make the same bytes (the publisher sends
/// only what changed). `proto/README.md` documents the JSON fields as API.
///
/// - `PREFIX/MEMBER/state`: one member's figures as JSON (``MemberState``).
/// - `PREFIX/board`: the week's board as JSON (``BoardState``); `PREFIX/leader` its leader.
/// - `homeassistant/sensor/PREFIX_MEMBER_FIELD/config`: discovery, one per sensor.
struct HomeAssistantMessages: Sendable {
    /// The first level of every topic, and of every id.
    let prefix: String

    /// One sensor of each member in Home Assistant: a field of their state.
    struct Sensor: Sendable {
        var field: String
        var name: String
        var unit: String?
        var deviceClass: String?
        var stateClass: String?
        var icon: String
        /// Millilitres or an entry count: left out for a member whose privacy is
        /// ``Privacy/percent``, as their board row leaves them out.
        var isAmount = false
    }

    static let memberSensors = [
        Sensor(
            field: "amount_ml", name: "Today", unit: "mL", deviceClass: "volume", stateClass: "total_increasing",
            icon: "mdi:cup-water", isAmount: true),
        Sensor(
            field: "goal_ml", name: "Goal", unit: "mL", deviceClass: "volume", stateClass: nil,
            icon: "mdi:flag-checkered",
            isAmount: true),
        Sensor(field: "percent", name: "Progress", unit: "%", stateClass: "measurement", icon: "mdi:water-percent"),
        Sensor(
            field: "drinks", name: "Drinks today", stateClass: "total_increasing", icon: "mdi:glass-water",
            isAmount: true),
        Sensor(
            field: "streak_days", name: "Streak", unit: "d", deviceClass: "duration", stateClass: "measurement",
            icon: "mdi:fire"),
        Sensor(
            field: "best_streak_days", name: "Best streak", unit: "d", deviceClass: "duration",
            stateClass: "measurement", icon: "mdi:trophy"),
        Sensor(
            field: "days_met", name: "Days met this week", unit: "d", stateClass: "measurement",
            icon: "mdi:calendar-check"),
        Sensor(field: "rank", name: "Board rank", stateClass: "measurement", icon: "mdi:podium"),
        Sensor(
            field: "average_percent", name: "Week average", unit: "%", stateClass: "measurement", icon: "mdi:chart-line"
        ),
    ]

    /// `PREFIX/MEMBER/state`. Millilitre fields and the count of drinks are absent for a
    /// `percent` member.
    struct MemberState: Encodable, Equatable {
        var username: String
        var displayName: String
        /// The member's today, `YYYY-MM-DD` in their zone.
        var date: String
        var amountMl: Int32?
        var goalMl: Int32?
        var percent: Int
        var drinks: Int?
        var streakDays: Int
        var bestStreakDays: Int
        var daysMet: Int
        var rank: Int
        var averagePercent: Int
        /// The household's chores done this week, and those due that were the member's turn.
        var choresDone = 0
        var choresDue = 0
    }

    /// `PREFIX/board`: the week's ranking, leader first.
    struct BoardState: Encodable, Equatable {
        struct Line: Encodable, Equatable {
            var rank: Int
            var username: String
            var displayName: String
            var totalMl: Int32?
            var daysMet: Int
            var averagePercent: Int
            var streakDays: Int
            var choresDone = 0
            var choresDue = 0
        }

        var week: String
        /// The leader's display name; nil before anyone drank this week.
        var leader: String?
        var members: [Line]
    }

    /// Every retained message for `members` (in board order, hidden ones already left out of
    /// the ranking) in `week`, by topic.
    func messages(week: ISOWeek, members: [HomeMember]) -> [String: [UInt8]] {
        let shown = members.filter { $0.privacy != .hidden }
        var messages: [String: [UInt8]] = [:]
        for member in shown {
            let username = member.standing.username
            messages[stateTopic(username)] = Self.json(state(of: member))
            for sensor in Self.memberSensors where member.privacy == .full || !sensor.isAmount {
                messages[configTopic(username, sensor.field)] = Self.json(config(sensor, of: member.standing))
            }
        }
        let board = board(week: week, shown)
        messages["\(prefix)/board"] = Self.json(board)
        messages["\(prefix)/leader"] = Array((board.leader ?? "none").utf8)
        messages[configTopic("household", "leader")] = Self.json(leaderConfig)
        return messages
    }

    func stateTopic(_ username: String) -> String { "\(prefix)/\(username)/state" }

    /// Where a member's reminders go (not retained): a Home Assistant automation's MQTT trigger
    /// (deploy/home-assistant-reminder-blueprint.yaml) turns each into a phone notification.
    func reminderTopic(_ username: String) -> String { "\(prefix)/\(username)/reminder" }

    /// A reminder as its message says it (`proto/README.md` documents the fields).
    struct ReminderMessage: Encodable {
        /// `event_type` and `kind` are both "water" (Home Assistant's MQTT event entities read the
        /// first); `member` is whom it is about (a child's go to their guardians).
        var eventType, kind, member, title, text, date: String
        var toGoMl: Int

        init(_ reminder: Reminder) {
            (eventType, kind, member) = (reminder.kind, reminder.kind, reminder.username)
            (title, text, toGoMl, date) = (reminder.title, reminder.text, reminder.toGoMillilitres, "\(reminder.date)")
        }
    }

    /// What the publisher subscribes to at each connect, to find what an earlier run left.
    var ownRetainedTopics: [String] { ["homeassistant/sensor/+/config", "\(prefix)/+/state"] }

    /// Whether a retained message found on the broker is one this prefix publishes: a member's
    /// state, or a discovery config whose state topic is under the prefix (another household's
    /// prefix `water_flat` makes ids that start `water_` too, but its state topics do not).
    func isOwnRetained(_ topic: String, _ payload: [UInt8]) -> Bool {
        if topic.hasPrefix("\(prefix)/") && topic.hasSuffix("/state") { return true }
        guard topic.hasPrefix("homeassistant/sensor/\(prefix)_"), topic.hasSuffix("/config") else { return false }
        return String(decoding: payload, as: UTF8.self).contains(#""state_topic":"\#(prefix)/"#)
    }

    func configTopic(_ username: String, _ field: String) -> String {
        "homeassistant/sensor/\(prefix)_\(username)_\(field)/config"
    }

    func state(of member: HomeMember) -> MemberState {
        let (standing, full) = (member.standing, member.privacy == .full)
        return MemberState(
            username: standing.username, displayName: standing.displayName, date: "\(member.today.date)",
            amountMl: full ? member.today.amountMillilitres : nil, goalMl: full ? member.today.goalMillilitres : nil,
            percent: member.today.percent, drinks: full ? member.today.count : nil, streakDays: standing.streakDays,
            bestStreakDays: standing.bestStreakDays, daysMet: standing.daysMet, rank: standing.rank,
            averagePercent: standing.averagePercent, choresDone: standing.choresDone, choresDue: standing.choresDue)
    }

    func board(week: ISOWeek, _ members: [HomeMember]) -> BoardState {
        let lines = members.map { member in
            let standing = member.standing
            return BoardState.Line(
                rank: standing.rank, username: standing.username, displayName: standing.displayName,
                totalMl: member.privacy == .full ? standing.totalMillilitres : nil, daysMet: standing.daysMet,
                averagePercent: standing.averagePercent, streakDays: standing.streakDays,
                choresDone: standing.choresDone, choresDue: standing.choresDue)
        }
        // Led by what the wall shows of them: a percent member's millilitres are not a figure
        // (15 ml, shown 0 %, leads no one).
        let leader = members.first {
            $0.privacy == .full ? $0.standing.totalMillilitres > 0 : $0.standing.averagePercent > 0
        }?.standing.displayName
        return BoardState(week: "\(week)", leader: leader, members: lines)
    }

    /// A Home Assistant discovery config (its MQTT sensor's keys).
    struct Config: Encodable {
        struct Device: Encodable {
            var identifiers: [String]
            var name: String
            var manufacturer = "water-server"
            var model: String
        }

        var name: String
        var uniqueID: String
        var objectID: String
        var stateTopic: String
        var valueTemplate: String?
        var jsonAttributesTopic: String?
        var unitOfMeasurement: String?
        var deviceClass: String?
        var stateClass: String?
        var icon: String
        var availabilityTopic: String
        var device: Device
    }

    func config(_ sensor: Sensor, of standing: BoardStanding) -> Config {
        let id = "\(prefix)_\(standing.username)_\(sensor.field)"
        return Config(
            name: sensor.name, uniqueID: id, objectID: id, stateTopic: stateTopic(standing.username),
            valueTemplate: "{{ value_json.\(sensor.field) }}", unitOfMeasurement: sensor.unit,
            deviceClass: sensor.deviceClass,
            stateClass: sensor.stateClass, icon: sensor.icon, availabilityTopic: "\(prefix)/status",
            device: Config.Device(
                identifiers: ["\(prefix)_member_\(standing.username)"], name: standing.displayName,
                model: "household member"))
    }

    /// The week's leader, with the whole board as its attributes (for a dashboard card).
    var leaderConfig: Config {
        let id = "\(prefix)_household_leader"
        return Config(
            name: "Week's leader", uniqueID: id, objectID: id, stateTopic: "\(prefix)/leader",
            jsonAttributesTopic: "\(prefix)/board", icon: "mdi:trophy", availabilityTopic: "\(prefix)/status",
            device: Config.Device(identifiers: ["\(prefix)_household"], name: "Household water board", model: "board"))
    }

    /// Keys sorted, so the same value is always the same bytes.
    static func json(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Home Assistant's keys are snake case (`unique_id`, `unit_of_measurement`).
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return (try? encoder.encode(value)).map { Array($0) } ?? Array("{}".utf8)
    }
}
