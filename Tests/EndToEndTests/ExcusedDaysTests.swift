import Foundation
import Testing
import WaterCore
import WaterProtocol
import WaterTestSupport

/// Thursday 2026-11-19 12:00 UTC, when the family's accounts are made (kid joins that day).
private let joiningDay: Int64 = Int64(LocalDate("2026-11-19")!.daysSinceEpoch) * 86_400_000 + 12 * 3_600_000
/// Sunday 2026-11-29 18:00 UTC, the end of the second week: what the boards are read at.
private let lastSunday: Int64 = Int64(LocalDate("2026-11-29")!.daysSinceEpoch) * 86_400_000 + 18 * 3_600_000

@Suite("Excused days and streaks, end to end", .serialized)
struct ExcusedDaysEndToEndTests {
    /// Two weeks (2026-W47 and W48) of a family, every goal 2000 ml:
    /// - mum: 2000 a day but Wednesday 18 (1000).
    /// - dad: 2000 a day but Saturday 28 (1000); sick on Wednesday 25 (excused by mum, an admin).
    /// - gran: 2000 on 16-18, then travelling from 19 to 29 (11 excused days).
    /// - kid: joins on Thursday 19: 2000 a day but Friday 20 (1000) and Friday 27 (500); privacy
    ///   percent, so the others' boards have her rank, percent, days met and streaks, no ml.
    @Test(
        "two weeks of a family with a sick day, a traveller, a late joiner and a percent member rank as computed by hand"
    )
    func twoWeeks() throws {
        var server = try ServerProcess.fresh(["--clock", "\(joiningDay)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for name in ["dad", "gran", "kid"] {
            #expect(
                try mum.run(["member", "add", name, "--password-stdin"], input: "\(name)-password-1\n").status == 0)
        }
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(lastSunday)"])
        let (dad, gran, kid) = (server.cli("dad"), server.cli("gran"), server.cli("kid"))
        for (name, cli) in [("mum", server.cli("mum")), ("dad", dad), ("gran", gran), ("kid", kid)] {
            let password = name == "mum" ? adminPassword : "\(name)-password-1"
            #expect(try cli.run(["login", name, "--password-stdin"], input: password + "\n").status == 0)
        }
        let mumAgain = server.cli("mum")
        let drinks: [(CommandLineUser, [(Int, Int)])] = [
            (mumAgain, (16...29).map { ($0, $0 == 18 ? 1000 : 2000) }),
            (dad, (16...29).filter { $0 != 25 }.map { ($0, $0 == 28 ? 1000 : 2000) }),
            (gran, (16...18).map { ($0, 2000) }),
            (kid, (19...29).map { ($0, $0 == 20 ? 1000 : $0 == 27 ? 500 : 2000) }),
        ]
        for (cli, days) in drinks {
            for (day, amount) in days {
                #expect(try cli.run(["log", "\(amount)", "--at", "2026-11-\(day)T09:00Z"]).status == 0)
            }
        }
        // Excuses: an admin for dad; gran for herself, a range; kid excuses a day and takes it back.
        #expect(try mumAgain.run(["excuse", "2026-11-25", "--reason", "sick", "--for", "dad"]).status == 0)
        #expect(
            try gran.run(["excuse", "--from", "2026-11-19", "--to", "2026-11-29", "--reason", "travel"]).status == 0)
        #expect(try kid.run(["excuse", "2026-11-27"]).status == 0)
        #expect(try kid.run(["unexcuse", "2026-11-27"]).status == 0)
        #expect(try kid.run(["privacy", "percent"]).status == 0)

        // What is refused, with a clear error, changes nothing.
        let fifteenth = try gran.run(["excuse", "--from", "2026-11-12", "--to", "2026-11-15", "--reason", "travel"])
        #expect(fifteenth.status == 65)
        #expect(fifteenth.error.contains("at most 14 days can be excused in any 28"), "\(fifteenth.error)")
        let forOther = try dad.run(["excuse", "2026-11-26", "--for", "gran"])
        #expect(forOther.status == 77, "\(forOther.error)")
        let unknown = try mumAgain.run(["excuse", "2026-11-26", "--for", "nobody"])
        #expect(unknown.status == 65 && unknown.error.contains("no member called"), "\(unknown.error)")
        let farAhead = try mumAgain.run(["excuse", "2027-01-30"])
        #expect(farAhead.status == 65 && farAhead.error.contains("days ahead"), "\(farAhead.error)")
        // The whole household at once (issue 32): admins only; gran's 15th day refuses it for all.
        let notAdmin = try dad.run(["excuse", "2026-11-13", "--household"])
        #expect(notAdmin.status == 77, "\(notAdmin.error)")
        let householdFifteenth = try mumAgain.run([
            "excuse", "--from", "2026-11-12", "--to", "2026-11-15", "--household",
        ])
        #expect(
            householdFifteenth.status == 65 && householdFifteenth.error.contains("for gran: "),
            "\(householdFifteenth.error)")

        // A restart: the excused days were journaled, and load from the log and the snapshot.
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(lastSunday)"])
        let reader = server.cli("mum")

        // Week 47, all seven days. Streaks end on its Sunday, and so does best: the best as it
        // stood then (here each one's streak on Sunday 22; later runs do not count).
        // dad 7/7 = 100 % (14000 ml) before gran 3/3 = 100 % (6000 ml, 4 excused: travel);
        // mum 6.5/7 = 92 %; kid 3.5/4 = 87 % (16-18 before joining: 3 excused).
        // Streaks on Sunday 22: dad 16-22 = 7 (best 7; 11 later: 16-27, the sick day bridging);
        // gran 16-18 = 3 (best 3); mum 19-22 = 4 (best 4, beating 16-17; 11 later: 19-29);
        // kid 21-22 = 2 (best 2, tying 19; 6 later: 21-26).
        let first = try #require(
            try reader.json(WaterV1.GetBoardResponse.self, ["board", "--week", "2026-W47", "--explain"]).board)
        #expect(first.rows.map(\.username) == ["dad", "gran", "mum", "kid"])
        #expect(first.rows.map(\.rank) == [1, 2, 3, 4])
        #expect(first.rows.map(\.averagePercent) == [100, 100, 92, 87])
        #expect(first.rows.map(\.totalMl) == [14000, 6000, 13000, 0])
        #expect(first.rows.map(\.amountsHidden) == [false, false, false, true])
        #expect(first.rows.map(\.daysMet) == [7, 3, 6, 3])
        #expect(first.rows.map(\.streakDays) == [7, 3, 4, 2])
        #expect(first.rows.map(\.bestStreakDays) == [7, 3, 4, 2])
        #expect(first.rows.map(\.excusedDays) == [0, 4, 0, 3])
        #expect(first.rows.map(\.allExcused) == [false, false, false, false])
        // kid's days reach the others as percent only: excused, but neither why nor how much.
        #expect(first.rows[3].days.prefix(3).allSatisfy { $0.excused && $0.excusedReason.isEmpty && $0.amountMl == 0 })
        // Her own board has her row whole: 7000 ml, and the days before she joined say so.
        let own = try #require(try kid.json(WaterV1.GetBoardResponse.self, ["board", "--week", "2026-W47"]).board)
        let kidRow = try #require(own.rows.first { $0.username == "kid" })
        #expect(kidRow.rank == 4 && kidRow.totalMl == 7000 && !kidRow.amountsHidden)
        #expect(kidRow.days.prefix(3).allSatisfy { $0.excused && $0.excusedReason == "not joined yet" })
        #expect(first.rows[1].days.suffix(4).allSatisfy { $0.excused && $0.excusedReason == "travel" })

        // Week 48, up to Sunday 29 (today): mum 7/7 = 100 %; dad 5.5/6 = 91 % (the sick day out);
        // kid 6.25/7 = 89 %; gran every day excused: last, "excused". Streaks today: mum 11,
        // dad 1 (Saturday unmet), kid 2, gran 3 (kept through the trip).
        let second = try #require(try reader.json(WaterV1.GetBoardResponse.self, ["board"]).board)
        #expect(second.week == "2026-W48")
        #expect(second.rows.map(\.username) == ["mum", "dad", "kid", "gran"])
        #expect(second.rows.map(\.rank) == [1, 2, 3, 4])
        #expect(second.rows.map(\.averagePercent) == [100, 91, 89, 0])
        #expect(second.rows.map(\.totalMl) == [14000, 11000, 0, 0])
        #expect(second.rows.map(\.amountsHidden) == [false, false, true, false])
        #expect(second.rows.map(\.daysMet) == [7, 5, 6, 0])
        #expect(second.rows.map(\.streakDays) == [11, 1, 2, 3])
        #expect(second.rows.map(\.bestStreakDays) == [11, 11, 6, 3])
        #expect(second.rows.map(\.excusedDays) == [0, 1, 0, 7])
        #expect(second.rows.map(\.allExcused) == [false, false, false, true])

        // The human board and --explain say the same.
        let text = try reader.run(["board", "--explain"]).output
        let granLine = try #require(text.split(separator: "\n").first { $0.contains("4. gran") })
        #expect(granLine.contains("excused") && granLine.contains("7 excused") && granLine.contains("best 3"))
        #expect(text.contains("excused (sick), not counted"), "\(text)")
        let dadLine = try #require(text.split(separator: "\n").first { $0.contains("2. dad") })
        #expect(dadLine.contains("1 excused") && dadLine.contains("streak 1  best 11"), "\(dadLine)")
        let kidLine = try #require(text.split(separator: "\n").first { $0.contains("3. kid") })
        #expect(kidLine.contains(" 89 %       - ml  6 met  streak 2  best 6"), "\(kidLine)")

        // today, week and history mark the excused days and show the streak.
        let today = try server.cli("gran").run(["today"]).output
        #expect(today.contains("excused (travel)") && today.contains("streak 3 days, best 3"), "\(today)")
        let week = try server.cli("gran").run(["week"]).output
        #expect(week.split(separator: "\n").filter { $0.contains("excused (travel)") }.count == 7, "\(week)")
        let history = try server.cli("dad").json(WaterV1.GetHistoryResponse.self, ["history", "--days", "14"])
        #expect(history.days.filter(\.excused).map(\.date) == ["2026-11-25"])
        #expect(history.streak.map { [$0.currentDays, $0.bestDays] } == [1, 11])
        #expect(server.stop() == 0)
    }
}

@Suite("Excused days away from home, in exports and in nudges, end to end", .serialized)
struct ExcusedDaysElsewhereTests {
    @Test("an excuse made with the server stopped waits in the outbox, shows in today, and is sent once")
    func offline() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        #expect(server.stop() == 0)
        let today = MemberTimeZone.utc.date(atUnixMilliseconds: UnixTime.nowMilliseconds()).description
        let saved = try mum.run(["excuse", "--reason", "sick"])
        #expect(
            saved.status == 0 && saved.output.hasPrefix("saved on this computer: excuse \(today) (sick)"), "\(saved)")
        // Refused now what the server would refuse whatever it holds: nothing is kept.
        let tooFar = try mum.run(["excuse", "2099-01-01"])
        #expect(tooFar.status == 65 && tooFar.error.contains("days ahead"), "\(tooFar)")
        #expect(OfflineTests.queuedFiles(mum).count == 1)
        #expect(try mum.run(["outbox"]).output.contains("excuse \(today) (sick)"))

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        let sync = try mum.run(["sync"])
        #expect(sync.status == 0, "\(sync)")
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
        let day = try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day
        #expect(day?.excused == true && day?.excusedReason == "sick")
        // Sent again (a lost reply), it changes nothing; taken back, the day counts again.
        #expect(try mum.run(["excuse", "--reason", "sick"]).status == 0)
        // (The days before mum's account, which init made at the real time, are excused too:
        // "not joined yet". Her own excuses are the rest.)
        let history = try mum.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "28"]).days
        #expect(history.filter { $0.excused && !Membership.isMembershipReason($0.excusedReason) }.count == 1)
        #expect(try mum.run(["unexcuse", "today"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.excused == false)
        #expect(try mum.run(["unexcuse"]).status == 64)
        #expect(try mum.run(["excuse", "2026-13-01"]).status == 64)
        #expect(try mum.run(["excuse", "today", "--from", "yesterday", "--to", "today"]).status == 64)
        #expect(server.stop() == 0)
    }

    @Test("excused days go out in an export and come back in an import, once; habit ls shows streaks")
    func exportImportAndHabits() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "2000", "--at", "2026-11-23T08:00Z"]).status == 0)
        #expect(
            try mum.run(["excuse", "--from", "2026-11-24", "--to", "2026-11-25", "--reason", "travel"]).status == 0)
        #expect(try mum.run(["habit", "add", "read"]).status == 0)
        for day in ["2026-11-23", "2026-11-26"] {
            #expect(try mum.run(["habit", "check", "read", "--day", day]).status == 0)
        }
        // Monday checked, Tuesday and Wednesday excused, today checked: a streak of 2.
        let habits = try mum.run(["habit", "ls"]).output
        #expect(habits.contains("streak 2, best 2"), "\(habits)")
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        for format in ["json", "csv"] {
            #expect(try mum.run(["export", "--format", format, "--output", "\(folder)/mum.\(format)"]).status == 0)
        }
        let csv = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8)
        #expect(csv.contains("excused,mum,,2026-11-24,,,,travel,,,,,\n"), "\(csv)")
        for (name, format) in [("jay", "json"), ("cas", "csv")] {
            let person = try server.addedMember(name, by: mum)
            let first = try person.json(WaterV1.ImportResponse.self, ["import", "--yes", "\(folder)/mum.\(format)"])
            #expect(first.excusedAdded == 2, "\(format)")
            let second = try person.json(WaterV1.ImportResponse.self, ["import", "--yes", "\(folder)/mum.\(format)"])
            #expect(second.excusedAdded == 0, "\(format)")
            let days = try person.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "4"]).days
            #expect(days.map(\.excused) == [false, true, true, false], "\(format)")
            #expect(days.map(\.excusedReason) == ["", "travel", "travel", ""], "\(format)")
        }
        // The household export has them too.
        let household = try mum.run(["export", "--household"])
        let members = try JSONDecoder().decode([WaterV1.MemberHistory].self, from: Data(household.output.utf8))
        #expect(members.map(\.excused.count) == [2, 2, 2])
        #expect(server.stop() == 0)
    }

    @Test("nudge says nothing on an excused day")
    func noNudge() throws {
        // 2026-11-30 14:00 UTC, nothing drunk: behind the day's pace.
        let server = try ServerProcess.fresh(["--clock", "1796047200000"])
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["nudge"]).output.hasPrefix("💧 behind"))
        #expect(try mum.run(["excuse", "2026-11-30", "--reason", "sick"]).status == 0)
        try? FileManager.default.removeItem(atPath: mum.environment["XDG_STATE_HOME"]! + "/water/nudged")
        let quiet = try mum.run(["nudge"])
        #expect(quiet.status == 0 && quiet.output.isEmpty, "\(quiet)")
        #expect(server.stop() == 0)
    }

    @Test("issue 32: an admin excuses the whole household at once, each member's day with the reason")
    func household() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let excused = try mum.run(["excuse", "--household", "--reason", "holiday"])
        #expect(excused.status == 0, "\(excused.error)")
        #expect(excused.output.contains("dad: excused") && excused.output.contains("mum: excused"), "\(excused.output)")
        #expect(excused.output.contains("(holiday)"), "\(excused.output)")
        let dad = server.cli("dad")
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let today = try dad.run(["today"]).output
        #expect(today.contains("excused (holiday)"), "\(today)")
        #expect(try mum.run(["excuse", "--household", "--for", "dad"]).status == 64)
    }
}
