import Foundation
import Testing
import WaterCore

@testable import WaterHome

/// Monday 2026-11-30 12:00 UTC, in week 2026-W49.
private let monday: Int64 = 1_796_040_000_000
private let week = ISOWeek("2026-W49")!

/// A member who drank `amounts` this Monday (goal 2000), each at 09:00 UTC plus a minute.
private func member(_ username: String, _ amounts: [Int32]) throws -> BoardMember {
    var water = WaterDiary(timeZone: .utc)
    for (n, amount) in amounts.enumerated() {
        let at = monday - 3 * 3_600_000 + Int64(n) * 60_000
        let decision = try water.validateLog(
            id: RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: UInt64(n + 1)), amountMillilitres: amount,
            unixMilliseconds: at, now: monday)
        guard case .log(let mutation) = decision else { Issue.record("drink \(n) is a duplicate"); continue }
        water.apply(mutation)
    }
    return BoardMember(username: username, displayName: username.capitalized, water: water)
}

/// The messages of `members` (with their privacy) as the publisher builds them.
private func messages(_ members: [(BoardMember, Privacy)]) -> [String: String] {
    let board = WeeklyBoard(members: members.map(\.0), week: week, order: .progress, now: monday)
    let home = board.standings.map { standing in
        let (member, privacy) = members.first { $0.0.username == standing.username }!
        return HomeMember(
            standing: standing, today: member.water.day(member.water.today(atUnixMilliseconds: monday)),
            privacy: privacy)
    }
    return HomeAssistantMessages(prefix: "water").messages(week: week, members: home).mapValues {
        String(decoding: $0, as: UTF8.self)
    }
}

private func object(_ text: String?) throws -> [String: Any] {
    try #require(try? JSONSerialization.jsonObject(with: Data((text ?? "").utf8)) as? [String: Any])
}

@Suite("Home Assistant messages")
struct HomeAssistantMessagesTests {
    @Test("issue 32: a percent member whose few millilitres show as 0 % leads no one on the wall")
    func leaderByShownFigures() throws {
        let published = messages([(try member("pat", [15]), .percent), (try member("ann", []), .full)])
        let board = try object(published["water/board"])
        #expect(board["leader"] as? String == nil, "\(board)")
        let led = messages([(try member("pat", [1000]), .percent), (try member("ann", []), .full)])
        #expect(try object(led["water/board"])["leader"] as? String == "Pat")
    }

    @Test("a full member's state has every figure, and the board ranks with the same WeeklyBoard the API serves")
    func fullMember() throws {
        let published = messages([(try member("ben", [1000, 500]), .full), (try member("ann", [250]), .full)])
        #expect(
            published["water/ben/state"]
                == #"{"amount_ml":1500,"average_percent":75,"best_streak_days":0,"chores_done":0,"chores_due":0,"date":"2026-11-30","days_met":0,"display_name":"Ben","drinks":2,"goal_ml":2000,"percent":75,"rank":1,"streak_days":0,"username":"ben"}"#
        )
        let board = try object(published["water/board"])
        #expect(board["week"] as? String == "2026-W49")
        #expect(board["leader"] as? String == "Ben")
        let lines = try #require(board["members"] as? [[String: Any]])
        #expect(lines.map { $0["username"] as? String } == ["ben", "ann"])
        #expect(lines.map { $0["total_ml"] as? Int } == [1500, 250])
        #expect(lines.map { $0["rank"] as? Int } == [1, 2])
        #expect(published["water/leader"] == "Ben")
        // Eight figures and the best streak.
        #expect(published.keys.filter { $0.hasPrefix("homeassistant/sensor/water_ben_") }.count == 9)
        #expect(published["homeassistant/sensor/water_ben_best_streak_days/config"] != nil)
    }

    @Test(
        "a percent member is published without millilitres or a count of drinks: none in the state, on the board or as sensors"
    )
    func percentMember() throws {
        let published = messages([(try member("ben", [1000]), .percent)])
        let state = try object(published["water/ben/state"])
        #expect(state["amount_ml"] == nil)
        #expect(state["goal_ml"] == nil && state["drinks"] == nil)
        #expect(state["percent"] as? Int == 50)
        let line = try #require((try object(published["water/board"])["members"] as? [[String: Any]])?.first)
        #expect(line["total_ml"] == nil)
        #expect(line["average_percent"] as? Int == 50)
        #expect(published["homeassistant/sensor/water_ben_amount_ml/config"] == nil)
        #expect(published["homeassistant/sensor/water_ben_goal_ml/config"] == nil)
        #expect(published["homeassistant/sensor/water_ben_drinks/config"] == nil)
        #expect(published["homeassistant/sensor/water_ben_percent/config"] != nil)
        #expect(!published.values.contains { $0.contains("_ml\"") && $0.contains("\"ben\"") })
    }

    @Test("a hidden member is not published at all")
    func hiddenMember() throws {
        let published = messages([(try member("ben", [1000]), .hidden), (try member("ann", [250]), .full)])
        #expect(!published.keys.contains { $0.contains("ben") })
        #expect(!published.values.contains { $0.contains("ben") || $0.contains("Ben") })
    }

    @Test("a discovery config names its sensor, device, state topic, template, unit, classes and availability")
    func discoveryConfig() throws {
        let published = messages([(try member("ben", [1000]), .full)])
        let amount = try object(published["homeassistant/sensor/water_ben_amount_ml/config"])
        #expect(amount["unique_id"] as? String == "water_ben_amount_ml")
        #expect(amount["state_topic"] as? String == "water/ben/state")
        #expect(amount["value_template"] as? String == "{{ value_json.amount_ml }}")
        #expect(amount["unit_of_measurement"] as? String == "mL")
        #expect(amount["device_class"] as? String == "volume")
        #expect(amount["state_class"] as? String == "total_increasing")
        #expect(amount["availability_topic"] as? String == "water/status")
        let device = try #require(amount["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["water_member_ben"])
        #expect(device["name"] as? String == "Ben")
        let rank = try object(published["homeassistant/sensor/water_ben_rank/config"])
        #expect(rank["unit_of_measurement"] == nil)
        #expect(rank["device_class"] == nil)
        let leader = try object(published["homeassistant/sensor/water_household_leader/config"])
        #expect(leader["state_topic"] as? String == "water/leader")
        #expect(leader["json_attributes_topic"] as? String == "water/board")
    }

    @Test("before anyone drinks the week has no leader; the same figures always make the same bytes")
    func noLeaderAndStable() throws {
        let members = [(try member("ben", []), Privacy.full), (try member("ann", []), .full)]
        let published = messages(members)
        #expect(published["water/leader"] == "none")
        #expect(try object(published["water/board"])["leader"] == nil)
        #expect(messages(members) == published)
    }

    @Test("what an earlier run left is recognised as its own; another household's prefix is not")
    func ownRetained() throws {
        let water = HomeAssistantMessages(prefix: "water")
        let flat = HomeAssistantMessages(prefix: "water_flat")
        let ben = try member("ben", [100])
        let board = WeeklyBoard(members: [ben], week: week, order: .progress, now: monday)
        let home = HomeMember(
            standing: board.standings[0], today: ben.water.day(ben.water.today(atUnixMilliseconds: monday)),
            privacy: .full)
        for (topic, payload) in flat.messages(week: week, members: [home]) where topic.hasPrefix("homeassistant/") {
            #expect(flat.isOwnRetained(topic, payload))
            #expect(!water.isOwnRetained(topic, payload), "\(topic)")
        }
        for (topic, payload) in water.messages(week: week, members: [home])
        where topic.hasPrefix("homeassistant/") || topic.hasSuffix("/state") {
            #expect(water.isOwnRetained(topic, payload))
        }
        #expect(
            !water.isOwnRetained(
                "homeassistant/sensor/water_heater_temp/config", Array(#"{"state_topic":"boiler/t"}"#.utf8)))
    }

    @Test("another prefix moves every topic and id")
    func prefix() throws {
        let ben = try member("ben", [100])
        let board = WeeklyBoard(members: [ben], week: week, order: .progress, now: monday)
        let home = HomeMember(
            standing: board.standings[0], today: ben.water.day(ben.water.today(atUnixMilliseconds: monday)),
            privacy: .full)
        let topics = HomeAssistantMessages(prefix: "flat2").messages(week: week, members: [home]).keys
        #expect(topics.contains("flat2/ben/state"))
        #expect(topics.contains("homeassistant/sensor/flat2_ben_rank/config"))
        #expect(!topics.contains { $0.hasPrefix("water") || $0.contains("/water_") })
        #expect(MQTTSettings.isValidPrefix("flat2"))
        #expect(!MQTTSettings.isValidPrefix("a/b"))
        #expect(!MQTTSettings.isValidPrefix("#"))
        #expect(!MQTTSettings.isValidPrefix(""))
    }
}
