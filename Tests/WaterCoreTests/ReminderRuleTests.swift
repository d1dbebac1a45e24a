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

    /// A list of `chores`, each added by its assignee, with ids 1, 2, ...
    func choreList(_ chores: [(text: String, chore: Chore)]) throws -> TodoList {
        var list = TodoList()
        for (n, (text, chore)) in chores.enumerated() {
            list.apply(
                try #require(
                    try list.validateAdd(
                        id: id(UInt64(n + 1)), text: text, chore: chore, by: chore.assignee ?? 1, now: 0)))
        }
        return list
    }

    /// The chore reminders of `list` at `hour:minute` of `date` in Berlin, the household being `accounts`.
    func choresDue(
        _ list: TodoList, _ accounts: [UInt64: Account], on date: LocalDate, _ hour: Int, _ minute: Int = 0
    ) -> [Reminder] {
        ReminderRule.choresDue(
            in: list, household: ChoreHousehold(today: monday, now: 0, members: Set(accounts.keys)), zone: berlin,
            accounts: accounts, now: berlin.unixMilliseconds(of: date, hour: hour, minute: minute))
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

    @Test("the night clocks go back, the repeated 02:30 reminds once: at its first pass")
    func fallBackOnce() throws {
        let member = account(1, every: 30, hours: "22:00-06:00")
        let water = WaterDiary(timeZone: berlin)
        let night = try #require(LocalDate("2026-10-25"))  // 03:00 summer time is 02:00 again
        let first = berlin.unixMilliseconds(of: night, hour: 2, minute: 30)
        let accounts = [UInt64(1): member]
        let twice = [first, first + 3_600_000].map {
            ReminderRule.due(for: member, water: water, usualCupMillilitres: 250, accounts: accounts, now: $0).count
        }
        #expect(berlin.minuteOfDay(atUnixMilliseconds: first + 3_600_000) == 150)
        #expect(twice == [1, 0])
    }

    @Test("a child's reminders go to their guardians, saying whose they are")
    func childToGuardians() throws {
        let (dad, mum) = (account(2), account(3))
        let kim = account(4, child: true, guardians: [2, 3])
        let sent = due(kim, WaterDiary(timeZone: berlin), at: 10, accounts: [2: dad, 3: mum, 4: kim])
        #expect(sent.map(\.recipient.id) == [2, 3] && sent.allSatisfy { $0.username == "m4" })
        #expect(sent[0].title == "M4: a glass of water?" && sent[0].text.hasPrefix("M4 has 0 of 2000 ml"))
    }

    @Test("a chore reminds whose turn it is when due, once more the next morning while not done, and not once done")
    func chores() throws {
        var dad = account(2)
        dad.reminders.chores = true
        var list = try choreList([("take the bins out", Chore(due: monday, dueMinute: 18 * 60, assignee: 2))])
        let household = ChoreHousehold(today: monday, now: 0, members: [2])
        func at(_ date: LocalDate, _ hour: Int, _ minute: Int, _ accounts: [UInt64: Account]) -> [Reminder] {
            choresDue(list, accounts, on: date, hour, minute)
        }
        let due = at(monday, 18, 0, [2: dad])
        #expect(due.map(\.title) == ["A chore is due"] && due[0].text == "take the bins out is due at 18:00")
        #expect(at(monday, 17, 59, [2: dad]).isEmpty && at(monday, 18, 1, [2: dad]).isEmpty)
        // The next morning at the start of his hours (08:00), once.
        let overdue = at(monday.adding(days: 1), 8, 0, [2: dad])
        #expect(overdue.map(\.title) == ["A chore is overdue"] && overdue[0].kind == "chore")
        #expect(at(monday.adding(days: 1), 9, 0, [2: dad]).isEmpty)
        // Not asked for: nothing.
        #expect(at(monday, 18, 0, [2: account(2)]).isEmpty)
        // Done: nothing more.
        let done = try #require(
            try list.validateDone(id: id(1), occurrence: monday, doneBy: 2, markedBy: nil, household: household))
        list.apply(done)
        #expect(at(monday.adding(days: 1), 8, 0, [2: dad]).isEmpty)
    }

    @Test(
        "a chore due in the recipient's quiet hours is held until their hours start; a child's goes by the guardian's hours"
    )
    func choresHeldToWakingHours() throws {
        var dad = account(2, hours: "10:00-20:00")
        dad.reminders.chores = true
        var kim = account(4, child: true, guardians: [2])
        kim.reminders = ReminderSettings(chores: true)
        let accounts: [UInt64: Account] = [2: dad, 4: kim]
        // Kim's chore has no time: the start of her hours (08:00), before her guardian's begin.
        let list = try choreList([
            ("start the dishwasher", Chore(due: monday, dueMinute: 3 * 60, assignee: 2)),
            ("feed the cat", Chore(due: monday, assignee: 4)),
        ])
        func at(_ hour: Int, _ minute: Int = 0, on date: LocalDate? = nil) -> [Reminder] {
            choresDue(list, accounts, on: date ?? monday, hour, minute)
        }
        #expect(at(3).isEmpty && at(8).isEmpty && at(9, 59).isEmpty)
        let morning = at(10)
        #expect(morning.count == 1 && morning[0].recipient.id == 2, "one message for both: \(morning)")
        #expect(morning[0].title == "2 chores are due")
        #expect(
            morning[0].text == "2 chores: start the dishwasher is due at 03:00; M4's chore: feed the cat is due today",
            "\(morning[0].text)")
        #expect(at(10, 1).isEmpty && at(20).isEmpty)
        // Overdue the next morning at the assignee's start, held to the recipient's 10:00 too.
        let tuesday = monday.adding(days: 1)
        #expect(at(8, on: tuesday).isEmpty)
        #expect(at(10, on: tuesday).map(\.title) == ["2 chores are overdue"])
    }

    @Test("500 chores due at 03:00 come as one message at the start of the recipient's hours, naming five")
    func choreFloodIsOneMessage() throws {
        var mum = account(3)
        mum.reminders.chores = true
        let chore = Chore(due: monday, dueMinute: 3 * 60, assignee: 3)
        let list = try choreList((1...TodoList.maximumItems).map { ("chore number \($0)", chore) })
        #expect(choresDue(list, [3: mum], on: monday, 3).isEmpty)
        let morning = choresDue(list, [3: mum], on: monday, 8)
        #expect(morning.count == 1 && morning[0].title == "500 chores are due")
        #expect(morning[0].text.hasPrefix("500 chores: chore number 1 is due at 03:00; chore number 2"))
        #expect(morning[0].text.hasSuffix("; and 495 more") && morning[0].text.utf8.count < 400)
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
