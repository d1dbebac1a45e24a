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
    /// - kid: joins on Thursday 19: 2000 a day but Friday 20 (1000) and Friday 27 (500).
    @Test("two weeks of a family with a sick day, a traveller and a late joiner rank as computed by hand")
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

        // A restart: the excused days were journaled, and load from the log and the snapshot.
        server = try server.restarted(["--listen", "\(server.address)", "--clock", "\(lastSunday)"])
        let reader = server.cli("mum")

        // Week 47, all seven days. Streaks end on its Sunday; best is the best ever.
        // dad 7/7 = 100 % (14000 ml) before gran 3/3 = 100 % (6000 ml, 4 excused: travel);
        // mum 6.5/7 = 92 %; kid 3.5/4 = 87 % (16-18 before joining: 3 excused).
        // Streaks on Sunday 22: dad 16-22 = 7 (best 11: 16-27, the sick day bridging);
        // gran 16-18 = 3 (best 3); mum 19-22 = 4 (best 11: 19-29); kid 21-22 = 2 (best 6: 21-26).
        let first = try #require(
            try reader.json(WaterV1.GetBoardResponse.self, ["board", "--week", "2026-W47", "--explain"]).board)
        #expect(first.rows.map(\.username) == ["dad", "gran", "mum", "kid"])
        #expect(first.rows.map(\.rank) == [1, 2, 3, 4])
        #expect(first.rows.map(\.averagePercent) == [100, 100, 92, 87])
        #expect(first.rows.map(\.totalMl) == [14000, 6000, 13000, 7000])
        #expect(first.rows.map(\.daysMet) == [7, 3, 6, 3])
        #expect(first.rows.map(\.streakDays) == [7, 3, 4, 2])
        #expect(first.rows.map(\.bestStreakDays) == [11, 3, 11, 6])
        #expect(first.rows.map(\.excusedDays) == [0, 4, 0, 3])
        #expect(first.rows.map(\.allExcused) == [false, false, false, false])
        #expect(first.rows[3].days.prefix(3).allSatisfy { $0.excused && $0.excusedReason == "not joined yet" })
        #expect(first.rows[1].days.suffix(4).allSatisfy { $0.excused && $0.excusedReason == "travel" })

        // Week 48, up to Sunday 29 (today): mum 7/7 = 100 %; dad 5.5/6 = 91 % (the sick day out);
        // kid 6.25/7 = 89 %; gran every day excused: last, "excused". Streaks today: mum 11,
        // dad 1 (Saturday unmet), kid 2, gran 3 (kept through the trip).
        let second = try #require(try reader.json(WaterV1.GetBoardResponse.self, ["board"]).board)
        #expect(second.week == "2026-W48")
        #expect(second.rows.map(\.username) == ["mum", "dad", "kid", "gran"])
        #expect(second.rows.map(\.rank) == [1, 2, 3, 4])
        #expect(second.rows.map(\.averagePercent) == [100, 91, 89, 0])
        #expect(second.rows.map(\.totalMl) == [14000, 11000, 12500, 0])
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
