import Foundation
import Testing
import WaterCore

/// The caps on what one member's archive holds: at the cap a write is taken, one past it is
/// refused naming the cap, and what is over a cap already (stored before the caps) is kept.
@Suite("Archive caps")
struct ArchiveCapsTests {
    let today = MemberTimeZone.utc.date(atUnixMilliseconds: noon)

    /// `count` drinks, every `step` from `start` on, applied as a journal replays them (no checks).
    private func stored(_ count: Int, from start: Int64, every step: Int64, firstID: UInt64 = 0) -> WaterDiary {
        var water = WaterDiary(timeZone: .utc)
        water.logAll(
            (0..<count).map {
                WaterEntry(
                    id: id(firstID + UInt64($0)), amountMillilitres: 100, unixMilliseconds: start + Int64($0) * step)
            })
        return water
    }

    private func log(_ water: WaterDiary, _ n: UInt64, at time: Int64) throws -> WaterMutation {
        try water.validateLog(id: id(n), amountMillilitres: 250, unixMilliseconds: time, now: noon).mutation
    }

    private func refusal(_ body: () throws -> Void) -> DomainError? {
        do {
            try body()
            return nil
        } catch {
            return error as? DomainError
        }
    }

    /// A repository file's text with its line breaks and runs of spaces made single spaces.
    static func text(_ path: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../\(path)")
        let text = try String(contentsOf: url.standardizedFileURL, encoding: .utf8)
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `n` as the documents write it: 10 000.
    static func written(_ n: Int) -> String {
        n < 1000 ? "\(n)" : "\(written(n / 1000)) \(String(n % 1000 + 1000).dropFirst())"
    }

    @Test("the caps are the ones README.md, proto/README.md and deploy/README.md state")
    func documented() throws {
        #expect(WaterDiary.earliestDate.description == "2000-01-01")
        let (day, year, all, habits, cups) = (
            WaterLimits.maximumEntriesPerDay, Self.written(WaterLimits.maximumEntriesPerYear),
            Self.written(WaterLimits.maximumEntries), HabitBook.maximumCount, NamedCup.maximumCount
        )
        let statements = [
            "README.md": [
                "| drinks on one day (the member's time zone) | \(day) |", "| drinks in one calendar year | \(year) |",
                "| drinks in all | \(all) |", "| habits | \(habits) |", "| named cups | \(cups) |",
                "| check-ins | one a habit a day, 2000-01-01 to today |",
            ],
            "proto/README.md": [
                "it holds at most \(day) drinks on a day of the member's time zone, \(year) in a calendar year of it "
                    + "and \(all) in all, \(habits) habits and \(cups) named cups"
            ],
            "deploy/README.md": ["\(day) drinks a day, \(year) a calendar year, \(all) in all, \(habits) habits"],
        ]
        for (path, expected) in statements {
            let text = try Self.text(path)
            for statement in expected { #expect(text.contains(statement), "\(path): \(statement)") }
        }
    }

    @Test("a day takes its 100th drink and refuses the 101st, naming the cap and the day; a replay is no new drink")
    func dayCap() throws {
        var water = WaterDiary(timeZone: .utc)
        for n in 0..<100 { water.apply(try log(water, UInt64(n), at: noon - 11 * hour + Int64(n) * 60_000)) }
        #expect(water.day(today).count == 100)
        let error = refusal { _ = try log(water, 100, at: noon - 10 * hour) }
        #expect(error?.kind == .full && error?.field == "at_unix_ms")
        #expect(error?.message == "at most 100 drinks a day: 2026-11-30 has 100 already; remove one first")
        // Without a time (now), the request has no field to name.
        let now = refusal {
            _ = try water.validateLog(id: id(101), amountMillilitres: 250, unixMilliseconds: nil, now: noon)
        }
        #expect(now?.kind == .full && now?.field == nil)
        // A replay of a drink the day holds is answered as before, never refused.
        #expect(
            try water.validateLog(id: id(5), amountMillilitres: 250, unixMilliseconds: nil, now: noon)
                == .duplicate(water.entry(id(5))!))
        // Another day has room; after a removal, the day has room again.
        water.apply(try log(water, 200, at: noon - day))
        water.apply(try water.validateDelete(id: id(0)))
        water.apply(try log(water, 100, at: noon - 10 * hour))
        #expect(water.day(today).count == 100)
    }

    @Test("an edit that moves a drink onto a full day is refused; one within the day is taken")
    func editCap() throws {
        var water = WaterDiary(timeZone: .utc)
        for n in 0..<100 { water.apply(try log(water, UInt64(n), at: noon - 11 * hour + Int64(n) * 60_000)) }
        water.apply(try log(water, 500, at: noon - day))
        let moved = refusal {
            _ = try water.validateEdit(id: id(500), amountMillilitres: nil, unixMilliseconds: noon - hour, now: noon)
        }
        #expect(moved?.message == "at most 100 drinks a day: 2026-11-30 has 100 already; remove one first")
        #expect(moved?.field == "at_unix_ms")
        water.apply(try water.validateEdit(id: id(7), amountMillilitres: 400, unixMilliseconds: noon - hour, now: noon))
        water.apply(try water.validateEdit(id: id(500), amountMillilitres: 400, unixMilliseconds: nil, now: noon))
        #expect(water.day(today).count == 100 && water.entry(id(7))?.amountMillilitres == 400)
    }

    @Test("a calendar year takes its 10 000th drink and refuses the 10 001st")
    func yearCap() throws {
        // 10 000 drinks of 2025, 28 a day at most, then one more day of 2025 and one of 2026.
        var water = stored(9_999, from: Self.unix(2025, 1, 1), every: 50 * 60_000)
        #expect(water.entryCount(inYear: 2025) == 9_999)
        water.apply(try log(water, 20_000, at: Self.unix(2025, 12, 31) + hour))
        #expect(water.entryCount(inYear: 2025) == 10_000)
        let error = refusal { _ = try log(water, 20_001, at: Self.unix(2025, 12, 31) + 2 * hour) }
        #expect(error?.kind == .full && error?.field == "at_unix_ms")
        #expect(error?.message == "at most 10000 drinks a calendar year: 2025 has 10000 already; remove one first")
        water.apply(try log(water, 20_002, at: noon))
        #expect(water.entryCount(inYear: 2026) == 1)
    }

    @Test("the diary takes its 100 000th drink and refuses the 100 001st")
    func inAllCap() throws {
        // 99 999 drinks from 2000 to mid-2026, about 10 a day (within the day and year caps),
        // then one more.
        var water = stored(99_999, from: Self.unix(2000, 1, 1), every: 140 * 60_000)
        #expect(water.overCaps.isEmpty && water.entries.last!.unixMilliseconds < noon - day)
        water.apply(try log(water, 200_000, at: noon - hour))
        #expect(water.entries.count == 100_000)
        let error = refusal { _ = try log(water, 200_001, at: noon - 2 * hour) }
        #expect(error?.kind == .full && error?.field == nil)
        #expect(error?.message == "at most 100000 drinks in all: the diary has 100000 already; remove one first")
        // An edit adds nothing in all.
        water.apply(
            try water.validateEdit(id: id(3), amountMillilitres: nil, unixMilliseconds: noon - 3 * hour, now: noon))
        #expect(water.entries.count == 100_000)
    }

    @Test("many drinks at once (an import) are refused whole, naming what the day would have")
    func many() throws {
        let water = stored(40, from: noon - 11 * hour, every: 60_000)
        let fits = Array(repeating: today, count: 60)
        try water.checkRoom(adding: fits)
        let error = refusal { try water.checkRoom(adding: fits + [today], field: "at_unix_ms") }
        #expect(error?.message == "at most 100 drinks a day: 2026-11-30 would have 101 (40 there and 61 new)")
        let alone = refusal { try WaterDiary(timeZone: .utc).checkRoom(adding: Array(repeating: today, count: 130)) }
        #expect(alone?.message == "at most 100 drinks a day: 2026-11-30 would have 130")
    }

    @Test("an archive over the caps (stored before them) keeps all of it and refuses only what adds to it")
    func overCapsKept() throws {
        // 150 drinks on one day, as a server before the caps stored them, and a change of zone.
        var water = stored(150, from: noon - 11 * hour, every: 60_000)
        #expect(water.entries.count == 150 && water.day(today).count == 150 && water.isValid)
        #expect(
            water.overCaps == [
                "1 day holds more than 100 drinks (at most 100 drinks a day), the most 150 on 2026-11-30"
            ])
        let error = refusal { _ = try log(water, 1000, at: noon - hour) }
        #expect(error?.message == "at most 100 drinks a day: 2026-11-30 has 150 already; remove one first")
        // Its drinks can still be changed within the day and removed; other days take drinks.
        water.apply(try water.validateEdit(id: id(1), amountMillilitres: 500, unixMilliseconds: noon - hour, now: noon))
        water.apply(try water.validateDelete(id: id(2)))
        water.apply(try log(water, 1001, at: noon - day))
        #expect(water.day(today).count == 149)

        // A drink moved off the full day can come back only when the day has room.
        water.apply(try water.validateEdit(id: id(3), amountMillilitres: nil, unixMilliseconds: noon - day, now: noon))
        #expect(
            refusal {
                _ = try water.validateEdit(id: id(3), amountMillilitres: nil, unixMilliseconds: noon, now: noon)
            }?
            .kind == .full)
    }

    @Test("a member keeps 32 habits; the 33rd is refused naming the cap, a replay of one kept is not")
    func habits() throws {
        var book = HabitBook()
        for n in 0..<32 {
            let added = try book.validateAdd(
                id: id(UInt64(n)), name: "habit \(n)", icon: .book, color: .blue, now: noon)
            book.apply(try #require(added))
        }
        let error = refusal {
            _ = try book.validateAdd(id: id(32), name: "one more", icon: .book, color: .blue, now: noon)
        }
        #expect(error?.kind == .full)
        #expect(error?.message == "at most 32 habits a member: you have 32 already; delete one first")
        #expect(try book.validateAdd(id: id(3), name: "habit 3", icon: .book, color: .blue, now: noon) == nil)
        #expect(book.overCaps.isEmpty)
    }

    @Test("a check-in is one a day from 2000-01-01 to today; an older one can still be taken back")
    func checkIns() throws {
        var book = HabitBook()
        book.apply(try #require(try book.validateAdd(id: id(1), name: "read", icon: .book, color: .blue, now: noon)))
        let first = try #require(LocalDate("2000-01-01"))
        book.apply(try book.validateCheck(id: id(1), date: first, checked: true, today: today))
        let error = refusal {
            _ = try book.validateCheck(id: id(1), date: first.adding(days: -1), checked: true, today: today)
        }
        #expect(error?.field == "date" && error?.message.contains("1999-12-31 is before 2000") == true)
        // One stored before the rule (a replayed journal) is kept, and can be unchecked.
        book.apply(.checked(id(1), first.adding(days: -1)))
        book.apply(try book.validateCheck(id: id(1), date: first.adding(days: -1), checked: false, today: today))
        #expect(book.habit(id(1))?.checkedDays == [first])
    }

    @Test("an import's excused days are from 2000-01-01 to 28 days ahead")
    func excusedRange() throws {
        let water = WaterDiary(timeZone: .utc)
        let first = try #require(LocalDate("2000-01-01"))
        #expect(try water.validateExcuse([first], reason: "sick", today: today, checkRange: false).count == 1)
        for date in [first.adding(days: -1), today.adding(days: 29)] {
            let error = refusal {
                _ = try water.validateExcuse([date], reason: "sick", today: today, checkRange: false)
            }
            #expect(error?.field == "days" && error?.message.contains("out of range") == true, "\(date)")
        }
    }

    static func unix(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        Int64(LocalDate(year: year, month: month, day: day)!.daysSinceEpoch) * 86_400_000
    }
}
