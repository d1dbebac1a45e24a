import Testing
import WaterCore
import WaterZoneInfo

/// Issue 32 item 7: the zone in force is remembered per move, so moving changes today and later
/// days only and never a finished week.
@Suite("Time zone moves")
struct ZoneHistoryTests {
    let losAngeles = ZoneInfo.system.zone(named: "America/Los_Angeles")!
    let vienna = ZoneInfo.system.zone(named: "Europe/Vienna")!
    let tokyo = ZoneInfo.system.zone(named: "Asia/Tokyo")!
    let sunday = LocalDate("2026-11-29")!

    /// Last week in Los Angeles: a drink every evening at 22:00 (07:00 the next morning in
    /// Vienna), Sunday excused (sick).
    func losAngelesWeek() throws -> WaterDiary {
        var water = WaterDiary(timeZone: losAngeles)
        for back in 1...7 {
            let date = sunday.adding(days: -back + 1)
            guard date != sunday else { continue }
            let at = losAngeles.unixMilliseconds(of: date, hour: 22, minute: 0)
            let decision = try water.validateLog(
                id: id(UInt64(back)), amountMillilitres: 1900, unixMilliseconds: at, now: noon)
            guard case .log(let mutation) = decision else { Issue.record("a new id was a duplicate"); continue }
            water.apply(mutation)
        }
        for mutation in try water.validateExcuse([sunday], reason: "sick", today: sunday) { water.apply(mutation) }
        return water
    }

    @Test("moving to Vienna leaves last week's days as they were: no drink moves onto the sick Sunday")
    func finishedWeekKept() throws {
        var water = try losAngelesWeek()
        let lastWeek = water.days(count: 7, endingOn: sunday)
        #expect(lastWeek.filter { $0.count == 1 }.count == 6 && water.day(sunday).count == 0)
        // Monday 2026-11-30 12:00 UTC: 13:00 in Vienna, 04:00 in Los Angeles.
        water.apply(.timeZoneSet(vienna, movedAtUnixMilliseconds: noon))
        #expect(water.days(count: 7, endingOn: sunday) == lastWeek)
        #expect(water.timeZone == vienna && water.today(atUnixMilliseconds: noon) == sunday.adding(days: 1))
        // A drink after the move counts on the Vienna day.
        let evening = vienna.unixMilliseconds(of: sunday.adding(days: 1), hour: 23, minute: 30)
        #expect(water.zones.date(atUnixMilliseconds: evening) == sunday.adding(days: 1))
        // What a move recorded without its instant (records from before) did: every day in the
        // new zone, Saturday's drink on the sick Sunday.
        water.apply(.timeZoneSet(vienna, movedAtUnixMilliseconds: nil))
        #expect(water.day(sunday).count == 1)
    }

    @Test("a move west never puts a later drink on an earlier day: the hours given back stay on the move's day")
    func moveWestKeepsTheDay() throws {
        var zones = ZoneHistory(vienna)
        // 2026-11-30 01:00 UTC: 02:00 Monday in Vienna, 17:00 Sunday in Los Angeles.
        let move = noon - 11 * hour
        zones.move(to: losAngeles, atUnixMilliseconds: move)
        #expect(zones.changes.first?.firstDay == sunday.adding(days: 1))
        #expect(zones.date(atUnixMilliseconds: move - hour) == sunday.adding(days: 1))  // 01:00 in Vienna
        #expect(zones.date(atUnixMilliseconds: move + hour) == sunday.adding(days: 1))  // 18:00 Sunday in LA
        // Once Los Angeles reaches Monday, its clock counts again, and Tuesday comes in its zone.
        let tuesday = losAngeles.unixMilliseconds(of: sunday.adding(days: 2), hour: 0, minute: 30)
        #expect(zones.date(atUnixMilliseconds: tuesday) == sunday.adding(days: 2))
        #expect(
            zones.zone(atUnixMilliseconds: move - 1) == vienna && zones.zone(atUnixMilliseconds: move) == losAngeles)
    }

    @Test("moves on one day are one change; moving back the same day is none; a clock set back replaces later moves")
    func oneChangeADay() throws {
        var zones = ZoneHistory(losAngeles)
        zones.move(to: vienna, atUnixMilliseconds: noon)
        zones.move(to: tokyo, atUnixMilliseconds: noon + hour)
        #expect(zones.changes.count == 1 && zones.changes[0].fromUnixMilliseconds == noon && zones.current == tokyo)
        zones.move(to: losAngeles, atUnixMilliseconds: noon + 2 * hour)
        #expect(zones.changes.isEmpty && zones.current == losAngeles)
        zones.move(to: losAngeles, atUnixMilliseconds: noon + 3 * hour)
        #expect(zones.changes.isEmpty)
        zones.move(to: vienna, atUnixMilliseconds: noon + 3 * day)
        zones.move(to: tokyo, atUnixMilliseconds: noon + day)
        #expect(zones.changes.map(\.zone) == [tokyo] && zones.changes[0].fromUnixMilliseconds == noon + day)
        // The stored form is checked the same way.
        #expect(ZoneHistory(original: losAngeles, changes: zones.changes) == zones)
        #expect(ZoneHistory(original: tokyo, changes: zones.changes) == nil)
        #expect(ZoneHistory(original: losAngeles, changes: zones.changes + zones.changes) == nil)
    }
}
