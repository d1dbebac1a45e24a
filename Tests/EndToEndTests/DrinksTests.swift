import Foundation
import Testing
import WaterCore
import WaterProtocol

/// Drinks through the real binaries (issue 20): the household's list, how each drink counts,
/// and a family's day checked against figures worked out by hand.
@Suite("Drinks, end to end")
struct DrinksTests {
    @Test("admins keep the list; members read it and are refused changes (77); water stays (65)")
    func householdList() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let listed = try mum.run(["drink", "ls"])
        #expect(
            listed.output
                == "water      1.00\nsparkling  0.98\ntea        1.00\ncoffee     0.91\nmilk       1.50\n"
                + "juice      1.39\nsports     1.02\nors        1.54\n", "\(listed.output)")
        let added = try mum.json(
            WaterV1.AddDrinkResponse.self, ["drink", "add", "cocoa", "--factor", "1.2", "--icon", "🍫"])
        #expect(added.drinks.last == WaterV1.Drink(name: "cocoa", factorHundredths: 120, icon: "🍫"))
        let set = try mum.json(WaterV1.SetDrinkResponse.self, ["drink", "set", "coffee", "--factor", "0.95"])
        #expect(set.drinks.first { $0.name == "coffee" }?.factorHundredths == 95)
        let removed = try mum.json(WaterV1.RemoveDrinkResponse.self, ["drink", "rm", "sports"])
        #expect(!removed.drinks.contains { $0.name == "sports" })

        let water = try mum.run(["drink", "rm", "water"])
        #expect(water.status == 65 && water.error.contains("water cannot be removed"), "\(water.error)")
        let outOfRange = try mum.run(["drink", "add", "syrup", "--factor", "2.5"])
        #expect(outOfRange.status == 65 && outOfRange.error.contains("between 0.10 and 2.00"), "\(outOfRange.error)")
        let threeDecimals = try mum.run(["drink", "add", "syrup", "--factor", "1.234"])
        #expect(threeDecimals.status == 64, "\(threeDecimals.error)")
        #expect(try mum.run(["drink", "add", "syrup"]).status == 64)

        #expect(try mum.run(["member", "add", "ben", "--password-stdin"], input: "ben-password-1\n").status == 0)
        let ben = server.cli("ben")
        #expect(try ben.run(["login", "ben", "--password-stdin"], input: "ben-password-1\n").status == 0)
        #expect(try ben.json(WaterV1.ListDrinksResponse.self, ["drink", "ls"]).drinks.map(\.name).contains("cocoa"))
        for change in [
            ["drink", "add", "soda", "--factor", "0.9"], ["drink", "set", "tea", "--factor", "2"],
            ["drink", "rm", "tea"],
        ] {
            #expect(try ben.run(change).status == 77, "\(change)")
        }
        // A restart keeps the list as changed.
        let again = try server.restarted(["--clock", "\(thursday)"])
        let mumAgain = again.cli("mum")
        #expect(try mumAgain.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let afterRestart = try mumAgain.json(WaterV1.ListDrinksResponse.self, ["drink", "ls"])
        #expect(
            afterRestart.drinks.map(\.name) == ["water", "sparkling", "tea", "coffee", "milk", "juice", "ors", "cocoa"])
        #expect(again.stop() == 0)
    }

    @Test("an export from before drinks imports as water at 1.00")
    func oldExportIsWater() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        // The CSV and JSON the export wrote before drinks existed.
        try """
        kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color
        entry,mum,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e,2026-11-26,1795710000000,250,,,,

        """.write(toFile: "\(folder)/old.csv", atomically: true, encoding: .utf8)
        try """
        [{"member":{"member_id":1,"username":"mum","display_name":"mum","role":"ROLE_ADMIN","time_zone":"UTC"},\
        "settings":{"daily_goal_ml":2000,"usual_cup_ml":250,"quick_cups_ml":[150,250,350],"time_zone":"UTC"},\
        "entries":[{"entry_id":"0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5f","amount_ml":330,"at_unix_ms":1795711000000,\
        "date":"2026-11-26"}],"goals":[],"habits":[]}]
        """.write(toFile: "\(folder)/old.json", atomically: true, encoding: .utf8)
        for file in ["old.csv", "old.json"] {
            let imported = try mum.run(["import", "\(folder)/\(file)"])
            #expect(imported.status == 0, "\(file): \(imported.error)")
        }
        let today = try mum.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(
            today.entries.map(\.drink) == ["water", "water"] && today.entries.map(\.factorHundredths) == [100, 100])
        #expect(today.day?.amountMl == 580 && today.day?.rawMl == 580)
        #expect(server.stop() == 0)
    }

    @Test(
        "log [AMOUNT] [DRINK]: what each form logs and counts; anything else is 64, too much or an unknown drink 65",
        arguments: [
            (["200", "tea"], 0, 200, "tea", 200), (["tea"], 0, 250, "tea", 250), (["300"], 0, 300, "water", 300),
            ([], 0, 250, "water", 250), (["0.5l", "juice"], 0, 500, "juice", 695), (["33cl"], 0, 330, "water", 330),
            (["milk", "200"], 0, 200, "milk", 300), (["250mL"], 0, 250, "water", 250),
            (["1.5L", "sparkling"], 0, 1500, "sparkling", 1470), (["50", "coffee"], 0, 50, "coffee", 46),
            (["2.5l"], 65, 0, "", 0), (["2001"], 65, 0, "", 0), (["0"], 65, 0, "", 0),
            (["lemonade"], 65, 0, "", 0), (["12x"], 64, 0, "", 0), (["0.3333l"], 64, 0, "", 0),
            (["1", "2"], 64, 0, "", 0), (["tea", "milk"], 64, 0, "", 0),
        ] as [([String], Int32, Int32, String, Int32)])
    func logGrammar(words: [String], status: Int32, raw: Int32, drink: String, counted: Int32) throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let logged = try mum.run(["--json", "log"] + words)
        #expect(logged.status == status, "log \(words): \(logged.error)")
        if status == 0 {
            let entry = try JSONDecoder().decode(WaterV1.LogWaterResponse.self, from: Data(logged.output.utf8)).entry
            #expect(entry?.amountMl == raw && entry?.drink == drink && entry?.countedMl == counted, "log \(words)")
        } else {
            #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.isEmpty, "log \(words) wrote")
        }
        if words == ["lemonade"] {
            #expect(logged.error.contains("it has water, sparkling, tea, coffee, milk, juice, sports, ors"))
        }
        #expect(server.stop() == 0)
    }

    @Test("cup --drink sets the usual drink; one the household has since removed is refused with what to do")
    func usualDrink() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let set = try mum.json(WaterV1.SetUsualCupResponse.self, ["cup", "--drink", "coffee"])
        #expect(set.settings?.usualDrink == "coffee" && set.settings?.usualCupMl == 250)
        #expect(try mum.run(["cup"]).output == "usual cup: 250 ml of coffee\nquick cups: 150 250 350 ml\n")
        // 250 ml at 0.91 is 227.5: halves away from zero, 228.
        let logged = try mum.json(WaterV1.LogWaterResponse.self, ["log"])
        #expect(logged.entry?.drink == "coffee" && logged.entry?.countedMl == 228 && logged.day?.amountMl == 228)
        #expect(try mum.run(["cup", "--drink", "lemonade"]).status == 65)
        #expect(try mum.run(["drink", "rm", "coffee"]).status == 0)
        let refused = try mum.run(["log"])
        #expect(
            refused.status == 65 && refused.error.contains("your usual drink, coffee, is no longer"), "\(refused.error)"
        )
        #expect(try mum.run(["log", "tea"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 228 + 250)
        #expect(server.stop() == 0)
    }

    @Test(
        "away from the server, log keeps the drink as typed, counts it at its factor as last heard, and refuses one the household did not have"
    )
    func offline() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        #expect(try mum.run(["cup", "--drink", "milk"]).status == 0)
        #expect(try mum.run(["today"]).status == 0)  // what this computer knows of the household's drinks
        #expect(server.stop() == 0)

        #expect(try mum.run(["log", "200", "tea"]).status == 0)
        let unknown = try mum.run(["log", "100", "lemonade"])
        #expect(unknown.status == 65 && unknown.error.contains("as this computer last heard"), "\(unknown.error)")
        #expect(try mum.run(["log"]).status == 0)  // the usual cup of the usual drink: 250 ml of milk
        #expect(OfflineTests.queuedFiles(mum).count == 2)
        let away = try mum.run(["today"])
        #expect(away.output.contains("575 / 2000 ml"), "\(away.output)")
        #expect(away.output.contains("+250 ml milk (counts 375)  (not sent yet)"), "\(away.output)")
        #expect(try mum.run(["prompt", "--plain"]).output.hasPrefix("water 575/2000 ml"))

        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        #expect(try mum.run(["sync"]).status == 0)
        let today = try mum.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(today.entries.map(\.drink) == ["milk", "tea"] && today.day?.amountMl == 575 && today.day?.rawMl == 450)
        #expect(server.stop() == 0)
    }

    @Test("the household's drinks are heard at login: away from the server right after, an unknown drink is refused")
    func drinksHeardAtLogin() throws {
        let server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        #expect(server.stop() == 0)
        let unknown = try mum.run(["log", "200", "cola"])
        #expect(unknown.status == 65 && unknown.error.contains("no drink called cola"), "\(unknown.error)")
        #expect(OfflineTests.queuedFiles(mum).isEmpty)
        #expect(try mum.run(["log", "200", "juice"]).status == 0)
        #expect(OfflineTests.queuedFiles(mum).count == 1)
        let away = try mum.run(["today"])
        #expect(away.output.contains("not sent yet:\n  log 200 ml juice at "), "\(away.output)")
    }

    @Test("named cups: cup add, ls and rm; log NAME logs its amount of its drink; a cup never hides a drink")
    func namedCups() throws {
        var server = try ServerProcess.fresh()
        let mum = try OfflineTests.member(server)
        let port = server.address.port
        #expect(try mum.run(["cup", "add", "mug", "350"]).status == 0)
        #expect(try mum.run(["cup", "add", "latte", "25cl", "--drink", "milk"]).status == 0)
        let shadow = try mum.run(["cup", "add", "tea", "200"])
        #expect(shadow.status == 65 && shadow.error.contains("tea is one of the household's drinks"), "\(shadow.error)")
        #expect(try mum.run(["cup", "add", "jug", "2500"]).status == 65)
        #expect(try mum.run(["cup", "add", "jug", "lots"]).status == 64)
        #expect(try mum.run(["cup", "add", "jug", "500", "--drink", "lemonade"]).status == 65)
        let listed = try mum.run(["cup", "ls"])
        #expect(
            listed.output
                == "usual cup: 250 ml of water\nquick cups: 150 250 350 ml\nmug    350 ml\nlatte  250 ml milk\n",
            "\(listed.output)")
        let mug = try mum.json(WaterV1.LogWaterResponse.self, ["log", "mug"]).entry
        #expect(mug?.amountMl == 350 && mug?.drink == "water" && mug?.countedMl == 350)
        let latte = try mum.json(WaterV1.LogWaterResponse.self, ["log", "latte"]).entry
        #expect(latte?.amountMl == 250 && latte?.drink == "milk" && latte?.countedMl == 375)
        let small = try mum.json(WaterV1.LogWaterResponse.self, ["log", "100", "latte"]).entry
        #expect(small?.amountMl == 100 && small?.countedMl == 150)
        let unknown = try mum.run(["log", "flask"])
        #expect(unknown.status == 65 && unknown.error.contains("your cups are mug, latte"), "\(unknown.error)")

        // Away from the server the cups are known as last heard.
        #expect(try mum.run(["today"]).status == 0)
        #expect(server.stop() == 0)
        #expect(try mum.run(["log", "latte"]).status == 0)
        #expect(try mum.run(["today"]).output.contains("+250 ml milk (counts 375)  (not sent yet)"))
        server = try server.restarted(["--listen", "127.0.0.1:\(port)"])
        #expect(try mum.run(["sync"]).status == 0)
        #expect(try mum.run(["cup", "rm", "mug"]).status == 0)
        #expect(try mum.run(["cup", "rm", "mug"]).status == 65)
        let day = try mum.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(day.day?.amountMl == 350 + 375 + 150 + 375 && day.settings?.cups.map(\.name) == ["latte"])
        #expect(server.stop() == 0)
    }

    /// A Thursday of mum (an admin) and ben, every figure worked out by hand:
    ///
    ///     mum  07:30 250 water 250 · 08:15 200 milk x1.50 = 300 · 10:00 250 tea 250 ·
    ///          12:30 mug 350 water 350 · 15:00 50 coffee x0.91 = 45.5, so 46
    ///          = 1196 counted of 1100 drunk, 59 % of 2000, 804 to go
    ///     ben  09:00 250 tea (his usual drink) 250 · 11:00 latte 250 milk = 375 ·
    ///          13:00 33cl juice x1.39 = 458.7, so 459 · 16:00 0.5l tea 500
    ///          = 1584 counted of 1330 drunk, 79 %, 416 to go
    @Test("a family's day with tea, milk, coffee, juice and named cups: every figure as worked out by hand")
    func familyDay() throws {
        let server = try ServerProcess.fresh(["--clock", "\(thursday)"])
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "add", "ben", "--password-stdin"], input: "ben-password-1\n").status == 0)
        let ben = server.cli("ben")
        #expect(try ben.run(["login", "ben", "--password-stdin"], input: "ben-password-1\n").status == 0)
        #expect(try mum.run(["cup", "add", "mug", "350"]).status == 0)
        #expect(try ben.run(["cup", "--drink", "tea"]).status == 0)
        #expect(try ben.run(["cup", "add", "latte", "250", "--drink", "milk"]).status == 0)
        for (person, words, at) in [
            (mum, ["250"], "07:30"), (mum, ["200", "milk"], "08:15"), (mum, ["tea"], "10:00"), (mum, ["mug"], "12:30"),
            (mum, ["50", "coffee"], "15:00"), (ben, [], "09:00"), (ben, ["latte"], "11:00"),
            (ben, ["33cl", "juice"], "13:00"), (ben, ["0.5l"], "16:00"),
        ] {
            let logged = try person.run(["log"] + words + ["--at", "2026-11-26 \(at)"])
            #expect(logged.status == 0, "log \(words): \(logged.error)")
        }

        let mums = try mum.json(WaterV1.GetTodayResponse.self, ["today"])
        #expect(mums.day?.amountMl == 1196 && mums.day?.rawMl == 1100 && mums.day?.percent == 59)
        #expect(mums.day?.remainingMl == 804 && mums.day?.count == 5)
        #expect(mums.entries.map(\.countedMl) == [46, 350, 250, 300, 250])
        let today = try mum.run(["today"]).output
        #expect(today.contains("1196 / 2000 ml  59 %  804 ml to go  5 drinks"), "\(today)")
        #expect(
            today.contains("by drink: water 600 ml, tea 250 ml, milk 200 ml (counts 300), coffee 50 ml (counts 46)"))
        #expect(today.contains("  08:15  +200 ml milk (counts 300)\n"), "\(today)")
        #expect(today.contains("  12:30  +350 ml water\n") && today.contains("  10:00  +250 ml tea\n"), "\(today)")

        let bens = try ben.json(WaterV1.GetHistoryResponse.self, ["history", "--days", "2", "--entries"])
        #expect(bens.days.map(\.amountMl) == [0, 1584] && bens.days.last?.rawMl == 1330)
        #expect(bens.days.last?.percent == 79 && bens.days.last?.remainingMl == 416)
        #expect(bens.entries.map(\.drink) == ["tea", "juice", "milk", "tea"])
        #expect(bens.entries.map(\.countedMl) == [500, 459, 375, 250])
        let week = try ben.run(["week"]).output
        #expect(week.contains("Thu 2026-11-26") && week.contains(" 1584 / 2000 ml"), "\(week)")

        // The board ranks by what counted: ben's 79 % before mum's 59 %.
        let board = try mum.json(WaterV1.GetBoardResponse.self, ["board"]).board
        #expect(board?.rows.map(\.username) == ["ben", "mum"])
        #expect(board?.rows.map(\.totalMl) == [1584, 1196])
        #expect(board?.rows.map { $0.days.first { $0.date == "2026-11-26" }?.amountMl } == [1584, 1196])
        let explained = try mum.run(["board", "--explain"]).output
        #expect(explained.contains("1584") && explained.contains("1196"), "\(explained)")

        // Exports carry drink and factor; a factor changed afterwards rewrites nothing.
        let csv = try mum.run(["export", "--format", "csv"]).output
        #expect(csv.contains(",200,,,,,milk,1.50,\n") && csv.contains(",50,,,,,coffee,0.91,\n"), "\(csv)")
        let json = try JSONDecoder().decode(
            [WaterV1.MemberHistory].self, from: Data(try mum.run(["export"]).output.utf8))
        #expect(json.first?.entries.map(\.countedMl).reduce(0, +) == 1196)
        #expect(try mum.run(["drink", "set", "milk", "--factor", "1.10"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 1196)
        #expect(try ben.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 1584)
        #expect(server.stop() == 0)
    }
}
