import Testing
import WaterClient
import WaterProtocol

/// The CSV form of an export, read as `water-client import` reads it.
@Suite struct HistoryCSVTests {
    private let now: Int64 = 1_764_590_400_000
    private let header = "kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color,drink,factor,made_by\n"
    private let habit = "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d60"

    @Test("every kind of row is written and read back the same, quoted fields and CRLF included")
    func roundTrip() throws {
        let text =
            header + "cup,mum,,,,250,,,,,,,\r\n"
            + "entry,mum,e1,2025-11-30,1764504000000,200,,,,,milk,1.5,dad\r\n"
            + "entry,mum,e2,2025-11-30,1764504060000,250,,,,,,,\n"
            + "goal,mum,,2025-11-30,,,2500,,,,,,\n"
            + "habit,mum,\(habit),,1764504000000,,,\"walk, then \"\"tea\"\"\",run,green,,,\n"
            + "checkin,mum,\(habit),2025-11-30,,,,,,,,,\n"
            + "excused,kim,,2025-11-29,,,,\"sick\nin bed\",,,,,\n"
        let histories = try HistoryCSV.read(text, now: now)
        try #require(histories.count == 2)
        let mum = histories[0]
        #expect(mum.member?.username == "mum" && mum.settings?.usualCupMl == 250)
        // An import takes no one's attribution (made_by is read past): the drinks are the importer's.
        #expect(mum.entries.map(\.factorHundredths) == [150, 0] && mum.entries[0].madeBy.isEmpty)
        #expect(mum.habits.first?.habit?.name == "walk, then \"tea\"")
        #expect(mum.habits.first?.checkedDates == ["2025-11-30"])
        #expect(histories[1].excused == [WaterV1.ExcusedDate(date: "2025-11-29", reason: "sick\nin bed")])
        #expect(try HistoryCSV.read(HistoryCSV.write(histories), now: now) == histories)
    }

    @Test("a check-in names its member's habit: another member's habit id is refused, not a crash")
    func checkInOfAnotherMembersHabit() {
        // The habit index was kept by habit id alone: kim's check-in took mum's place in her
        // list, and kim has no habits, so reading it trapped (seen while writing the import-csv
        // fuzz target's round trip).
        let text =
            header + "habit,mum,\(habit),,1764504000000,,,walk,run,green,,,\n"
            + "checkin,kim,\(habit),2025-11-30,,,,,,,,,\n"
        #expect(throws: WaterError(.invalidArgument, "line 3: a check-in of an unknown habit")) {
            try HistoryCSV.read(text, now: now)
        }
    }

    @Test("a usual cup that is not a number of ml is refused, naming the line")
    func cupMustBeAnAmount() {
        for cup in ["", "0", "-5", "lots"] {
            #expect(throws: WaterError(.invalidArgument, "line 2: a usual cup is a number of ml above 0")) {
                try HistoryCSV.read(header + "cup,mum,,,,\(cup),,,,,,,\n", now: now)
            }
        }
    }

    @Test("a factor on an entry without a drink's name is kept, not lost on the way back")
    func factorWithoutDrink() throws {
        let histories = try HistoryCSV.read(header + "entry,mum,e1,2025-11-30,1764504000000,200,,,,,,0.50,\n", now: now)
        #expect(try HistoryCSV.read(HistoryCSV.write(histories), now: now).first?.entries.first?.factorHundredths == 50)
    }

    @Test("a drink after now or out of range is refused, naming its line and id")
    func drinksAreChecked() {
        #expect(throws: WaterError.self) {
            try HistoryCSV.read(header + "entry,mum,e9,2025-11-30,1864504000000,200,,,,,,,\n", now: now)
        }
        do {
            _ = try HistoryCSV.read(header + "entry,mum,e9,2025-11-30,1764504000000,5000,,,,,,,\n", now: now)
            Issue.record("5000 ml was read")
        } catch {
            #expect(error.message.hasPrefix("line 2 (drink e9): a drink must be between 1 and 2000 ml"), "\(error)")
        }
    }
}
