import Foundation
import Testing
import WaterCore
import WaterZoneInfo

@Suite("LocalDate and ISOWeek")
struct CalendarTests {
    @Test(
        "converts between dates and days since 1970",
        arguments: [
            ("1970-01-01", 0), ("1969-12-31", -1), ("2000-02-29", 11_016), ("2026-11-30", 20_787),
            ("2400-03-01", 157_114),
        ])
    func civil(text: String, days: Int) throws {
        let date = try #require(LocalDate(text))
        #expect(date.daysSinceEpoch == days)
        #expect(date.description == text)
    }

    @Test(
        "refuses dates that do not exist",
        arguments: ["2026-02-29", "2026-13-01", "2026-00-10", "2026-4-01", "26-04-01", "2026-04-31", "2026-04-1x"])
    func invalid(text: String) {
        #expect(LocalDate(text) == nil)
    }

    @Test("knows the weekday: 2026-11-30 is a Monday, 1970-01-01 a Thursday")
    func weekday() throws {
        #expect(try #require(LocalDate("2026-11-30")).isoWeekday == 1)
        #expect(try #require(LocalDate("2026-12-06")).isoWeekday == 7)
        #expect(LocalDate(daysSinceEpoch: 0).isoWeekday == 4)
        #expect(LocalDate(daysSinceEpoch: -1).isoWeekday == 3)
    }

    @Test(
        "numbers weeks as ISO 8601 does, across year boundaries",
        arguments: [
            ("2026-11-30", "2026-W49"), ("2026-01-01", "2026-W01"), ("2027-01-01", "2026-W53"),
            ("2024-12-30", "2025-W01"), ("2021-01-03", "2020-W53"), ("2026-12-27", "2026-W52"),
        ])
    func isoWeek(date: String, week: String) throws {
        let parsed = ISOWeek(containing: try #require(LocalDate(date)))
        #expect(parsed.description == week)
        #expect(ISOWeek(week) == parsed)
        #expect(parsed.contains(try #require(LocalDate(date))))
        #expect(parsed.monday.isoWeekday == 1 && parsed.days.count == 7)
    }

    @Test("refuses weeks that do not exist", arguments: ["2026-W54", "2025-W53", "2026-W00", "2026W01", "2026-01"])
    func invalidWeek(text: String) {
        #expect(ISOWeek(text) == nil)
    }
}

@Suite("MemberTimeZone")
struct MemberTimeZoneTests {
    @Test("puts an instant on the member's own date")
    func differentZones() throws {
        let instant: Int64 = 1_764_547_200_000  // 2025-12-01 00:00 UTC
        #expect(MemberTimeZone.utc.date(atUnixMilliseconds: instant).description == "2025-12-01")
        let newYork = try #require(ZoneInfo.system.zone(named: "America/New_York"))
        #expect(newYork.date(atUnixMilliseconds: instant).description == "2025-11-30")
        let tokyo = try #require(ZoneInfo.system.zone(named: "Asia/Tokyo"))
        #expect(tokyo.date(atUnixMilliseconds: instant - 8 * 3_600_000).description == "2025-12-01")
    }

    @Test("gives the 23-hour and 25-hour days of daylight saving every instant of theirs")
    func daylightSaving() throws {
        let berlin = try #require(ZoneInfo.system.zone(named: "Europe/Berlin"))
        for (day, hours) in [("2026-03-29", 23), ("2026-10-25", 25), ("2026-06-01", 24)] {
            let date = try #require(LocalDate(day))
            let start = berlin.unixMilliseconds(of: date, hour: 0, minute: 0)
            let end = berlin.unixMilliseconds(of: date.adding(days: 1), hour: 0, minute: 0)
            #expect(end - start == Int64(hours) * 3_600_000, "\(day)")
            #expect(berlin.date(atUnixMilliseconds: start) == date)
            #expect(berlin.date(atUnixMilliseconds: end - 1) == date)
            #expect(berlin.date(atUnixMilliseconds: end) == date.adding(days: 1))
        }
    }

    @Test("refuses a zone the system does not know, and a name that would leave the zoneinfo folder")
    func unknownZone() {
        #expect(ZoneInfo.system.zone(named: "Mars/Olympus_Mons") == nil)
        #expect(ZoneInfo.system.zone(named: "../../etc/passwd") == nil)
        #expect(ZoneInfo(directory: "/nonexistent").zone(named: "Europe/Berlin") == nil)
    }

    @Test("the domain takes its zones from whatever source it is handed: a fixed +05:30 table, no file")
    func handedZone() {
        let india = MemberTimeZone(
            identifier: "Asia/Kolkata", offsets: UTCOffsetTable(initialOffset: 19_800, instants: [], offsets: []))
        // 2025-11-30 20:00 UTC is already 1 December in India.
        #expect(india.date(atUnixMilliseconds: 1_764_532_800_000).description == "2025-12-01")
        #expect(india == ZoneInfo.system.zone(named: "Asia/Kolkata"))
    }
}

@Suite("RecordID")
struct RecordIDTests {
    @Test("parses and prints the canonical form")
    func text() throws {
        let id = try #require(RecordID("0192E4A0-7b5c-7cc3-8a1e-6f1d2b3c4d5e"))
        #expect(id.description == "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e")
        #expect(RecordID(bytes: id.bytes) == id)
        #expect(RecordID("00000000-0000-0000-0000-000000000001")?.low == 1)
    }

    @Test("prints and parses as Foundation's UUID does, for 1000 random ids")
    func agreesWithFoundation() throws {
        for _ in 0..<1000 {
            let uuid = UUID()
            let id = try #require(RecordID(uuid.uuidString))
            #expect(id.description == uuid.uuidString.lowercased())
            #expect(RecordID(bytes: withUnsafeBytes(of: uuid.uuid) { Array($0) }) == id)
            #expect(RecordID(id.description[...]) == id)
        }
    }

    @Test(
        "refuses what is not a UUID",
        arguments: [
            "", "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5", "0192e4a0_7b5c-7cc3-8a1e-6f1d2b3c4d5e",
            "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5g", "0192e4a07b5c7cc38a1e6f1d2b3c4d5e0000",
        ])
    func invalid(text: String) {
        #expect(RecordID(text) == nil)
    }

    @Test("makes time-ordered version 8 ids that carry their time")
    func timeOrdered() {
        let id = RecordID.timeOrdered(unixMilliseconds: 1_764_504_000_000, counter: 5, installation: 0xABCDEF)
        #expect(id.embeddedUnixMilliseconds == 1_764_504_000_000)
        #expect(id.description.dropFirst(14).first == "8")  // version nibble
        #expect(id.low >> 62 == 0b10)  // RFC 9562 variant
        let later = RecordID.timeOrdered(unixMilliseconds: 1_764_504_000_001, counter: 0, installation: 0xABCDEF)
        #expect(id < later)
    }
}

@Suite("MemberTimeZone offsets")
struct MemberTimeZoneOffsetTests {
    @Test(
        "agree with the system's time zone database at 2000 instants",
        arguments: [
            "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/Sao_Paulo",
            "Pacific/Apia", "UTC",
        ])
    func matchesFoundation(identifier: String) throws {
        let zone = try #require(ZoneInfo.system.zone(named: identifier))
        let reference = try #require(TimeZone(identifier: identifier))
        var seconds: Int64 = 946_684_800  // 2000-01-01
        for step in 0..<2000 {
            seconds += 86_400 * 5 + Int64(step % 7) * 3_613
            let expected = Int64(reference.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
            #expect(zone.offsetSeconds(atUnixSeconds: seconds) == expected, "\(identifier) at \(seconds)")
        }
    }
}
