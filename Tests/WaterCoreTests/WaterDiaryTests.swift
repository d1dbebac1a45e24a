import Testing
import WaterCore
import WaterZoneInfo

/// 2026-11-30 (a Monday) 12:00 UTC, the "now" of these tests.
let noon: Int64 = 1_796_040_000_000
let hour: Int64 = 3_600_000
let day: Int64 = 24 * hour

func id(_ n: UInt64) -> RecordID { RecordID(high: 0x0192_e4a0_7b5c_7cc3, low: n) }

/// Logs each amount at the given offsets from noon, in order.
func diary(_ drinks: [(Int32, Int64)], zone: MemberTimeZone = .utc) throws -> WaterDiary {
    var diary = WaterDiary(timeZone: zone)
    for (index, (amount, offset)) in drinks.enumerated() {
        guard
            case .log(let mutation) = try diary.validateLog(
                id: id(UInt64(index)), amountMillilitres: amount, unixMilliseconds: noon + offset, now: noon)
        else { Issue.record("unexpected duplicate"); continue }
        diary.apply(mutation)
    }
    return diary
}

@Suite("WaterDiary")
struct WaterDiaryTests {
    let today = MemberTimeZone.utc.date(atUnixMilliseconds: noon)

    @Test("follows the seed's worked table: 250 ml, then 350 more, then past the goal")
    func seedTable() throws {
        var water = try diary([(250, -3 * hour)])
        var summary = water.day(today)
        #expect((summary.amountMillilitres, summary.count, summary.percent) == (250, 1, 12))
        #expect(summary.progress == 0.125 && summary.remainingMillilitres == 1750 && summary.goalMillilitres == 2000)

        water.apply(
            try water.validateLog(id: id(10), amountMillilitres: 350, unixMilliseconds: noon - 2 * hour, now: noon)
                .mutation)
        summary = water.day(today)
        #expect((summary.amountMillilitres, summary.count, summary.percent) == (600, 2, 30))

        for n in 0..<5 {
            water.apply(
                try water.validateLog(
                    id: id(20 + UInt64(n)), amountMillilitres: 400, unixMilliseconds: noon - hour, now: noon
                ).mutation)
        }
        summary = water.day(today)
        #expect(summary.amountMillilitres == 2600)
        #expect(summary.progress == 1 && summary.percent == 100 && summary.remainingMillilitres == 0)
        #expect(summary.isGoalMet)
    }

    @Test("a time before 2000 is refused in words for people, not the wire's units")
    func earlyTime() throws {
        let water = try diary([])
        #expect {
            try water.validateLog(id: id(1), amountMillilitres: 250, unixMilliseconds: 900_000_000_000, now: noon)
        } throws: { error in
            let message = (error as? DomainError)?.message ?? ""
            return message.hasPrefix("that time is before the year 2000") && !message.contains("milliseconds")
        }
    }

    @Test("lists a day's entries newest first")
    func newestFirst() throws {
        let water = try diary([(150, -5 * hour), (250, -1 * hour), (350, -3 * hour), (100, -day)])
        #expect(water.entries(on: today).map(\.amountMillilitres) == [250, 350, 150])
    }

    @Test("logs the usual cup when no amount is given, and quick cups follow the usual cup")
    func usualCup() throws {
        var water = WaterDiary(timeZone: .utc)
        water.apply(try water.validateUsualCup(500))
        #expect(water.quickCupsMillilitres == [150, 250, 350, 500])
        let decision = try water.validateLog(id: id(1), amountMillilitres: nil, unixMilliseconds: nil, now: noon)
        #expect(decision == .log(.logged(WaterEntry(id: id(1), amountMillilitres: 500, unixMilliseconds: noon))))
    }

    @Test("refuses amounts outside 1-2000 ml", arguments: [0, -1, 2001, Int32.max, Int32.min] as [Int32])
    func amountRange(amount: Int32) {
        let water = WaterDiary(timeZone: .utc)
        #expect(throws: DomainError.invalid("amount_ml", "a drink must be between 1 and 2000 ml, got \(amount)")) {
            try water.validateLog(id: id(1), amountMillilitres: amount, unixMilliseconds: noon, now: noon)
        }
    }

    @Test("accepts the ends of every range", arguments: [1, 2000] as [Int32])
    func rangeEnds(amount: Int32) throws {
        let water = WaterDiary(timeZone: .utc)
        _ = try water.validateLog(id: id(1), amountMillilitres: amount, unixMilliseconds: noon, now: noon)
        _ = try water.validateGoal(amount == 1 ? 500 : 10_000, now: noon)
        _ = try water.validateUsualCup(amount)
    }

    @Test("refuses goals outside 500-10000 ml and cups outside 1-2000 ml")
    func settingsRanges() {
        let water = WaterDiary(timeZone: .utc)
        for goal: Int32 in [499, 10_001, 0, -500] {
            #expect(throws: DomainError.self) { try water.validateGoal(goal, now: noon) }
        }
        for cup: Int32 in [0, 2001, -1] {
            #expect(throws: DomainError.self) { try water.validateUsualCup(cup) }
        }
    }

    @Test("refuses a drink in the future beyond the allowed skew, and one before 2000")
    func times() throws {
        let water = WaterDiary(timeZone: .utc)
        _ = try water.validateLog(id: id(1), amountMillilitres: 250, unixMilliseconds: noon + 60_000, now: noon)
        #expect(throws: DomainError.self) {
            try water.validateLog(id: id(1), amountMillilitres: 250, unixMilliseconds: noon + 3 * 60_000, now: noon)
        }
        #expect(throws: DomainError.self) {
            try water.validateLog(id: id(1), amountMillilitres: 250, unixMilliseconds: 1_000, now: noon)
        }
    }

    @Test("recognises a replayed id instead of counting it twice, and refuses a reused one")
    func replay() throws {
        let water = try diary([(250, -hour)])
        let replay = try water.validateLog(
            id: id(0), amountMillilitres: 250, unixMilliseconds: noon - hour, now: noon + hour)
        #expect(replay == .duplicate(WaterEntry(id: id(0), amountMillilitres: 250, unixMilliseconds: noon - hour)))
        #expect(throws: DomainError.self) {
            try water.validateLog(id: id(0), amountMillilitres: 300, unixMilliseconds: noon - hour, now: noon)
        }
    }

    @Test("edits, deletes and undoes while keeping the day's figures right")
    func editDeleteUndo() throws {
        var water = try diary([(250, -3 * hour), (350, -2 * hour), (500, -day)])
        water.apply(try water.validateEdit(id: id(0), amountMillilitres: 300, unixMilliseconds: nil, now: noon))
        #expect(water.day(today).amountMillilitres == 650)
        // Move yesterday's entry to today.
        water.apply(try water.validateEdit(id: id(2), amountMillilitres: nil, unixMilliseconds: noon - hour, now: noon))
        #expect(water.day(today).amountMillilitres == 1150 && water.day(today).count == 3)
        #expect(water.day(today.adding(days: -1)).count == 0)
        water.apply(try water.validateDelete(id: id(1)))
        #expect(water.day(today).amountMillilitres == 800)
        // Undo removes the entry logged last (id 2), whatever its time.
        water.apply(try water.validateUndo(now: noon))
        #expect(water.entries.map(\.id) == [id(0)])
        #expect(throws: DomainError.self) { try water.validateDelete(id: id(1)) }
        #expect(throws: DomainError.self) {
            try water.validateEdit(id: id(9), amountMillilitres: 1, unixMilliseconds: nil, now: noon)
        }
        water.apply(try water.validateUndo(now: noon))
        #expect(throws: DomainError(.notFound, "there is no entry to undo")) { try water.validateUndo(now: noon) }
    }

    @Test("undo never reaches into a week that is over; the drink can still be removed by its id")
    func undoStopsAtTheWeek() throws {
        // noon is Monday 2026-11-30: a drink on Sunday belongs to the week before.
        var water = try diary([(250, -day)])
        let refused = #expect(throws: DomainError.self) { try water.validateUndo(now: noon) }
        #expect(refused?.kind == .notFound && refused?.message.contains("2026-11-29") == true)
        water.apply(try water.validateDelete(id: id(0)))
        #expect(water.entries.isEmpty)
        // In this week's days, undo works as before.
        var thisWeek = try diary([(250, -day), (300, -hour)])
        thisWeek.apply(try thisWeek.validateUndo(now: noon))
        #expect(thisWeek.entries.map(\.id) == [id(0)])
        #expect(throws: DomainError.self) { try thisWeek.validateUndo(now: noon) }
    }

    @Test("keeps each day's goal: a change applies from today on, never to a past day")
    func goalChangeMidWeek() throws {
        var water = try diary([(1000, -2 * day), (1000, -day), (1000, 0)])
        water.apply(try water.validateGoal(1000, now: noon))
        #expect(water.day(today).goalMillilitres == 1000 && water.day(today).isGoalMet)
        #expect(water.day(today.adding(days: -1)).goalMillilitres == 2000)
        #expect(!water.day(today.adding(days: -1)).isGoalMet)
        #expect(water.day(today.adding(days: 5)).goalMillilitres == 1000)
        // A drink backdated to before the change gets the goal of its own day.
        water.apply(
            try water.validateLog(id: id(9), amountMillilitres: 100, unixMilliseconds: noon - 3 * day, now: noon)
                .mutation)
        #expect(water.day(today.adding(days: -3)).goalMillilitres == 2000)
    }

    @Test("counts the streak up to today, without breaking it while today is still open")
    func streak() throws {
        let water = try diary([(2000, -3 * day), (2000, -2 * day), (2000, -day), (500, 0), (2000, -5 * day)])
        #expect(water.streak(endingOn: today, today: today) == 3)
        #expect(water.streak(endingOn: today.adding(days: -1), today: today) == 3)
        #expect(water.streak(endingOn: today.adding(days: -4), today: today) == 0)
        #expect(water.streak(endingOn: today.adding(days: -5), today: today) == 1)
    }

    @Test("puts drinks on the member's own days, and moves them when the time zone changes")
    func timeZones() throws {
        let newYork = try #require(ZoneInfo.system.zone(named: "America/New_York"))
        // Noon UTC is 07:00 in New York: 13 hours earlier is Nov 29 there and in UTC,
        // 1 hour earlier is Nov 30 in both.
        var water = try diary([(250, -13 * hour), (250, -1 * hour)], zone: newYork)
        #expect(water.day(today.adding(days: -1)).count == 1)
        #expect(water.day(today).count == 1)
        water.apply(.timeZoneSet(.utc, movedAtUnixMilliseconds: nil))
        #expect(water.day(today).count == 1 && water.day(today.adding(days: -1)).count == 1)
        let tokyo = try #require(ZoneInfo.system.zone(named: "Asia/Tokyo"))
        water.apply(.timeZoneSet(tokyo, movedAtUnixMilliseconds: nil))  // both are on Nov 30 in Tokyo (08:00 and 20:00)
        #expect(water.day(today).count == 2)
    }

    @Test("keeps the two drinks of a 25-hour day on that one day")
    func longDay() throws {
        let berlin = try #require(ZoneInfo.system.zone(named: "Europe/Berlin"))
        let date = try #require(LocalDate("2026-10-25"))
        let early = berlin.unixMilliseconds(of: date, hour: 0, minute: 30)
        let late = berlin.unixMilliseconds(of: date, hour: 23, minute: 30)
        #expect(late - early == 24 * hour)  // 23 wall-clock hours apart, 24 real ones
        var water = WaterDiary(timeZone: berlin)
        for (n, at) in [early, late].enumerated() {
            water.apply(
                try water.validateLog(id: id(UInt64(n)), amountMillilitres: 250, unixMilliseconds: at, now: noon)
                    .mutation)
        }
        #expect(water.day(date).count == 2)
        #expect(water.day(date.adding(days: 1)).count == 0)
    }
}

extension LogDecision {
    var mutation: WaterMutation {
        get throws {
            guard case .log(let mutation) = self else { throw DomainError(.conflict, "expected a new entry") }
            return mutation
        }
    }
}

@Suite("WaterDiary day index")
struct WaterDiaryIndexTests {
    @Test(
        "per-day totals and entries, newest first, always equal a scan from scratch, through logs, edits, deletes and zone changes"
    )
    func indexMatchesBruteForce() throws {
        var water = WaterDiary(timeZone: .utc)
        var state: UInt64 = 12_345
        func next(_ bound: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % bound
        }
        let zones = ["UTC", "Europe/Berlin", "Pacific/Auckland", "America/Los_Angeles"].compactMap(
            ZoneInfo.system.zone(named:))
        func expectIndexMatchesEntries() {
            let today = water.today(atUnixMilliseconds: noon)
            for offset in 0..<22 {
                let date = today.adding(days: -offset)
                let onDate = water.entries.filter { water.date(of: $0) == date }
                let summary = water.day(date)
                #expect(summary.amountMillilitres == onDate.reduce(0) { $0 + $1.amountMillilitres })
                #expect(summary.count == onDate.count)
                let newestFirst = onDate.sorted { ($0.unixMilliseconds, $0.id) > ($1.unixMilliseconds, $1.id) }
                #expect(water.entries(on: date) == newestFirst)
            }
        }
        for n in 0..<600 {
            if n % 50 == 0 { expectIndexMatchesEntries() }
            let at = noon - Int64(next(20)) * day - Int64(next(24)) * hour
            switch next(10) {
            case 0 where !water.entries.isEmpty:
                let victim = water.entries[Int(next(UInt64(water.entries.count)))].id
                water.apply(
                    try water.validateEdit(
                        id: victim, amountMillilitres: Int32(1 + next(2000)), unixMilliseconds: at, now: noon))
            case 1 where !water.entries.isEmpty:
                water.apply(try water.validateDelete(id: water.entries[Int(next(UInt64(water.entries.count)))].id))
            case 2:
                // A move at a random past instant, or (as records from before moves were kept)
                // every day counted in the new zone.
                let zone = zones[Int(next(UInt64(zones.count)))]
                water.apply(.timeZoneSet(zone, movedAtUnixMilliseconds: next(2) == 0 ? nil : at))
            default:
                water.apply(
                    try water.validateLog(
                        id: id(UInt64(n)), amountMillilitres: Int32(1 + next(2000)),
                        unixMilliseconds: at, now: noon
                    ).mutation)
            }
        }
        expectIndexMatchesEntries()
        #expect(water.isValid)
    }
}

@Suite("WaterDiary bulk load")
struct WaterDiaryBulkLoadTests {
    /// `count` drinks over three weeks with random ids (not time-ordered, as an import brings).
    static func drinks(_ count: Int, seed: UInt64) -> [WaterEntry] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        return (0..<count).map { _ in
            WaterEntry(
                id: RecordID(high: next(), low: next()), amountMillilitres: Int32(1 + next() % 2000),
                unixMilliseconds: noon - Int64(next() % UInt64(21 * day)))
        }
    }

    @Test("logAll builds the same diary and indexes as logging one at a time, also when ids repeat")
    func sameAsOneByOne() throws {
        let zone = try #require(ZoneInfo.system.zone(named: "Europe/Berlin"))
        var drinks = Self.drinks(500, seed: 7)
        for withRepeat in [false, true] {
            if withRepeat { drinks.append(WaterEntry(id: drinks[3].id, amountMillilitres: 1, unixMilliseconds: noon)) }
            var bulk = WaterDiary(timeZone: zone)
            bulk.logAll(drinks)
            var single = WaterDiary(timeZone: zone)
            for drink in drinks { single.apply(.logged(drink)) }
            #expect(bulk == single)
            #expect(bulk.isValid)
            for offset in 0..<22 {
                let date = bulk.today(atUnixMilliseconds: noon).adding(days: -offset)
                #expect(bulk.entries(on: date) == single.entries(on: date))
                #expect(bulk.day(date) == single.day(date))
            }
            for drink in drinks.prefix(50) { #expect(bulk.entry(drink.id) == single.entry(drink.id)) }
        }
    }
}

@Suite("Percent")
struct PercentTests {
    @Test(
        "is progress x 100 truncated, in whole numbers: 580 of 2000 is 29, 1140 is 57, 250 is 12",
        arguments: [
            (Int32(580), 29), (1140, 57), (250, 12), (1999, 99), (2000, 100), (2500, 100), (0, 0), (1, 0), (20, 1),
        ])
    func dayPercent(amount: Int32, percent: Int) {
        let day = WaterDay(
            date: LocalDate(daysSinceEpoch: 0), amountMillilitres: amount, goalMillilitres: 2000, count: 1)
        #expect(day.percent == percent)
    }

    @Test("agrees with exact arithmetic for every amount of a 2000 ml goal")
    func everyAmount() {
        for amount in Int32(0)...2000 {
            let day = WaterDay(
                date: LocalDate(daysSinceEpoch: 0), amountMillilitres: amount, goalMillilitres: 2000, count: 1)
            #expect(day.percent == Int(amount) * 100 / 2000)
        }
    }
}
