import Testing
import WaterClient
import WaterCore
import WaterZoneInfo

/// Monday 2026-11-30 12:00 UTC.
private let now: Int64 = 1_796_040_000_000
private let hour: Int64 = 3_600_000

@Suite("When")
struct WhenTests {
    private let berlin = ZoneInfo.system.zone(named: "Europe/Berlin")!

    @Test(
        "reads --at as people type it",
        arguments: [
            ("21:30", now - 12 * hour + 21 * hour + 30 * 60_000),
            ("yesterday 21:30", now - 12 * hour - 24 * hour + 21 * hour + 30 * 60_000),
            ("today 07:05", now - 12 * hour + 7 * hour + 5 * 60_000),
            ("2026-11-28 08:00", now - 12 * hour - 2 * 24 * hour + 8 * hour),
            ("2026-11-30T09:15", now - 3 * hour + 15 * 60_000),
            ("2026-11-30T09:15:30", now - 3 * hour + 15 * 60_000 + 30_000),
            ("2026-11-30T09:15Z", now - 3 * hour + 15 * 60_000),
            ("2026-11-30T10:15+01:00", now - 3 * hour + 15 * 60_000),
            ("2026-11-30T04:15-05:00", now - 3 * hour + 15 * 60_000),
        ] as [(String, Int64)])
    func times(text: String, expected: Int64) {
        #expect(When.parse(text, now: now, zone: .utc) == expected)
    }

    @Test("reads local times in the given zone")
    func zone() {
        // 21:30 in Berlin (UTC+1 in November) is 20:30 UTC.
        #expect(When.parse("21:30", now: now, zone: berlin) == now - 12 * hour + 20 * hour + 30 * 60_000)
    }

    @Test(
        "refuses what is not a time",
        arguments: [
            "", "25:00", "21:60", "tomorrow 10:00", "2026-13-01 10:00",
            "2026-11-30T", "2026-11-30T10:15+1", "noon", "10", "a b c",
        ])
    func invalid(text: String) {
        #expect(When.parse(text, now: now, zone: .utc) == nil)
    }

    @Test("reads --week and --day")
    func weeksAndDays() {
        let current = { "2026-W49" }
        #expect(When.week(nil, current: current) == "")
        #expect(When.week("last", current: current) == "2026-W48")
        #expect(When.week("last", current: { "2027-W01" }) == "2026-W53")
        #expect(When.week("2026-W10", current: current) == "2026-W10")
        #expect(When.week("2026-W54", current: current) == nil)
        #expect(When.week("week", current: current) == nil)
        #expect(When.day(nil, now: now, zone: .utc) == "")
        #expect(When.day("today", now: now, zone: .utc) == "")
        #expect(When.day("yesterday", now: now, zone: .utc) == "2026-11-29")
        #expect(When.day("2026-11-02", now: now, zone: .utc) == "2026-11-02")
        #expect(When.day("2026-02-30", now: now, zone: .utc) == nil)
    }
}
