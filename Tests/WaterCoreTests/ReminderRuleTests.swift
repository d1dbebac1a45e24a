import Testing
import WaterCore
import WaterZoneInfo

/// Issue 34: when the server's water reminders are due, on the member's own wall clock.
@Suite("Reminder rule")
struct ReminderRuleTests {
    let berlin = ZoneInfo.system.zone(named: "Europe/Berlin")!
    let monday = LocalDate("2026-11-30")!

    func account(
        _ id: UInt64, every: Int = 60, hours: String = "08:00-22:00", child: Bool = false, guardians: [UInt64] = []
    )
        -> Account
    {
        var account = Account(
            id: id, username: "m\(id)", displayName: "M\(id)", role: .member, timeZone: berlin, passwordHash: "",
            createdAtUnixMilliseconds: 0, isChild: child, guardians: guardians)
        account.reminders = ReminderSettings(water: .init(hours: WakingHours(hours)!, everyMinutes: every))
        return account
    }

    func due(
        _ account: Account, _ water: WaterDiary, at hour: Int, _ minute: Int = 0, on date: LocalDate? = nil,
        accounts: [UInt64: Account] = [:]
    ) -> [Reminder] {
        let now = berlin.unixMilliseconds(of: date ?? monday, hour: hour, minute: minute)
        return ReminderRule.due(for: account, water: water, usualCupMillilitres: 250, accounts: accounts, now: now)
    }

    func drink(_ water: inout WaterDiary, _ amount: Int32, at hour: Int, n: UInt64) throws {
        let at = berlin.unixMilliseconds(of: monday, hour: hour, minute: 0)
        water.apply(try water.validateLog(id: id(n), amountMillilitres: amount, unixMilliseconds: at, now: at).mutation)
    }

    @Test("quiet outside the hours, due on whole intervals from their start while behind, with what is left to drink")
    func quietHoursAndIntervals() throws {
        let member = account(1, every: 60)
        let water = WaterDiary(timeZone: berlin)
        #expect(due(member, water, at: 7).isEmpty && due(member, water, at: 22).isEmpty, "quiet hours")
        #expect(due(member, water, at: 8).isEmpty, "at the start nothing is due yet")
        let ten = due(member, water, at: 10)
        #expect(ten.count == 1 && ten[0].toGoMillilitres == 2000 && ten[0].recipient.id == 1)
        #expect(ten[0].text == "you have 0 of 2000 ml by 10:00 (about 285 by now): 2000 ml to go")
        #expect(due(member, water, at: 10, 30).isEmpty, "between intervals")
    }

    @Test("a goal met at 15:00 stops the afternoon's reminders; on pace is quiet too")
    func goalMet() throws {
        let member = account(1)
        var water = WaterDiary(timeZone: berlin)
        try drink(&water, 600, at: 9, n: 1)
        #expect(due(member, water, at: 12).isEmpty, "600 ml by noon is ahead of the 571 due")
        #expect(due(member, water, at: 15).count == 1, "600 by 15:00 is 400 behind the 1000 due")
        try drink(&water, 1400, at: 15, n: 2)
        #expect(due(member, water, at: 16).isEmpty && due(member, water, at: 21).isEmpty)
    }

    @Test("an excused day is silent")
    func excused() throws {
        let member = account(1)
        var water = WaterDiary(timeZone: berlin)
        for mutation in try water.validateExcuse([monday], reason: "sick", today: monday) { water.apply(mutation) }
        #expect(due(member, water, at: 12).isEmpty)
    }

    @Test("night hours across midnight, and the DST night: reminders on the wall clock's whole hours")
    func acrossMidnightAndDST() throws {
        let member = account(1, every: 60, hours: "22:00-06:00")
        let water = WaterDiary(timeZone: berlin)
        #expect(due(member, water, at: 23).count == 1)
        // 2026-03-29: Berlin's clocks go from 02:00 to 03:00. 03:00 and 04:00 are whole hours
        // from 22:00 on the wall clock; 07:00 is outside the hours.
        let night = LocalDate("2026-03-29")!
        #expect(due(member, water, at: 3, on: night).count == 1 && due(member, water, at: 4, on: night).count == 1)
        #expect(due(member, water, at: 3, 30, on: night).isEmpty && due(member, water, at: 7, on: night).isEmpty)
    }

    @Test("a child's reminders go to their guardians, saying whose they are")
    func childToGuardians() throws {
        let (dad, mum) = (account(2), account(3))
        let kim = account(4, child: true, guardians: [2, 3])
        let sent = due(kim, WaterDiary(timeZone: berlin), at: 10, accounts: [2: dad, 3: mum, 4: kim])
        #expect(sent.map(\.recipient.id) == [2, 3] && sent.allSatisfy { $0.username == "m4" })
        #expect(sent[0].title == "M4: a glass of water?" && sent[0].text.hasPrefix("M4 has 0 of 2000 ml"))
    }

    @Test("settings out of range are refused naming the field; a token never goes in clear off this machine")
    func settingsChecked() throws {
        func field(_ make: () throws(DomainError) -> ReminderSettings) -> String? {
            do {
                _ = try make()
                return nil
            } catch {
                return error.field
            }
        }
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(every: 5, from: "08:00", to: "22:00", mqtt: false, pushURL: "", pushToken: "")
            } == "every_minutes")
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(every: 60, from: "8", to: "22:00", mqtt: false, pushURL: "", pushToken: "")
            } == "from")
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(every: 60, from: "08:00", to: "08:00", mqtt: false, pushURL: "", pushToken: "")
            } == "to")
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(
                    every: 60, from: "08:00", to: "22:00", mqtt: false, pushURL: "http://ntfy.example/x", pushToken: "t"
                )
            } == "push_url")
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(
                    every: 60, from: "08:00", to: "22:00", mqtt: false, pushURL: "https://ntfy.example/x",
                    pushToken: "a b")
            } == "push_token")
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(
                    every: 60, from: "22:00", to: "24:00", mqtt: true, pushURL: "http://127.0.0.1:8080/x",
                    pushToken: "tk_1")
            } == nil)
        // Plain http only to a loopback address written out: never a name that looks like one.
        for url in [
            "http://127.example.net/x", "http://127.0.0.1@ntfy.example/x", "http://localhost/x", "http://[::2]/x",
        ] {
            #expect(
                field { () throws(DomainError) in
                    try ReminderSettings(
                        every: 60, from: "08:00", to: "22:00", mqtt: false, pushURL: url, pushToken: "t")
                } == "push_url", "\(url)")
        }
        #expect(
            field { () throws(DomainError) in
                try ReminderSettings(
                    every: 60, from: "08:00", to: "22:00", mqtt: false, pushURL: "http://[::1]:8080/x", pushToken: "t")
            } == nil)
    }
}
