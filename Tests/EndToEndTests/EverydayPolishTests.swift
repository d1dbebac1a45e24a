import Foundation
import Testing
import WaterProtocol
import WaterTestSupport

/// Points of issue 22, through the real binaries.
@Suite("Everyday polish, end to end", .serialized)
struct EverydayPolishTests {
    @Test("the bar never looks fuller than the percent: 1980 of 2000 (99 %) leaves a cell empty")
    func barFloors() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["goal", "2000"]).status == 0)
        #expect(try mum.run(["log", "1980"]).status == 0)
        let today = try mum.run(["today"])
        #expect(today.output.contains("███████████████████░ 1980 / 2000 ml  99 %"), "\(today.output)")
        #expect(try mum.run(["log", "20"]).status == 0)
        #expect(try mum.run(["today"]).output.contains("████████████████████ 2000 / 2000 ml  100 %"))
    }

    @Test("outbox drop --all and retry --all with nothing refused say so, instead of 'dropped '")
    func emptyOutbox() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let dropped = try mum.run(["outbox", "drop", "--all"])
        #expect(dropped.status == 0 && dropped.output == "the server refused nothing: nothing to drop\n", "\(dropped)")
        let retried = try mum.run(["outbox", "retry", "--all"])
        #expect(retried.status == 0 && retried.output == "the server refused nothing: nothing to retry\n", "\(retried)")
        #expect(try mum.run(["--json", "outbox", "drop", "--all"]).output.contains("\"dropped\":0"))
    }

    @Test("one is singular: 1 day, 1 entry, 1 member")
    func plurals() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        #expect(try mum.run(["history", "--days", "1"]).output.hasSuffix("goal met on 0 of 1 day\n"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let exported = try mum.run(["export", "--output", file])
        #expect(exported.error == "exported 1 entry of 1 member to \(file)\n", "\(exported.error)")
    }

    @Test(
        "--listen failures name their cause: a name that does not resolve, an address not this machine's, a busy port")
    func listenFailures() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("listen-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        // A second household beside the running one, so that its lock is free.
        #expect(
            try run(
                "water-server",
                ["init", "--data", copy, "--admin", "mum", "--password-stdin", "--password-strength", "minimum"],
                input: adminPassword + "\n"
            ).status == 0)
        for (listen, expected) in [
            ("nonsense.invalid:7420", "resolve nonsense.invalid:7420: "),
            ("192.0.2.1:7420", "Cannot assign requested address; is that address one of this machine's?"),
            ("\(server.address)", "Address already in use; is another server using that port?"),
        ] {
            let served = try run("water-server", ["serve", "--data", copy, "--listen", listen], seconds: 30)
            #expect(served.status == 69, "\(listen): \(served.error)")
            #expect(served.error.contains(expected), "\(listen): \(served.error)")
            #expect(listen == "\(server.address)" || !served.error.contains("port?"), "\(served.error)")
        }
    }

    @Test("backup --to inside the data directory is refused, however the path is written, and makes nothing")
    func backupInsideData() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let data = server.dataDirectory
        let parent = (data as NSString).deletingLastPathComponent
        let name = (data as NSString).lastPathComponent
        for target in ["\(data)/backup", "\(data)/users/copy/", "\(parent)/\(name)/../\(name)/b"] {
            let backup = try run("water-server", ["backup", "--data", data, "--to", target])
            #expect(backup.status != 0, "\(target): \(backup.output)")
            #expect(backup.error.contains("is inside the data directory"), "\(target): \(backup.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(data)/backup"))
        #expect(!FileManager.default.fileExists(atPath: "\(data)/b"))
        // Beside it is fine.
        let beside = "\(parent)/\(name)-backup"
        defer { try? FileManager.default.removeItem(atPath: beside) }
        #expect(try run("water-server", ["backup", "--data", data, "--to", beside]).status == 0)
    }

    @Test("every file water-server --help names is in a serving data directory")
    func helpNamesTheFiles() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        #expect(waitUntil { FileManager.default.fileExists(atPath: "\(server.dataDirectory)/status") })
        let help = try run("water-server", ["--help"]).output
        let named = Set(help.split(whereSeparator: { " ,:\n".contains($0) }).filter { $0.hasPrefix("DIR/") })
        #expect(named.count >= 8, "\(named)")
        for path in named {
            let file = server.dataDirectory + path.dropFirst(3).replacingOccurrences(of: "ID", with: "1")
            #expect(FileManager.default.fileExists(atPath: file), "\(path) is not in a data directory")
        }
    }

    @Test("--json prompt prints one JSON object of the prompt's figures")
    func jsonPrompt() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["goal", "2000"]).status == 0)
        #expect(try mum.run(["log", "500"]).status == 0)
        let shown = try mum.run(["--json", "prompt"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any], "\(shown.output)")
        #expect(object["amount_ml"] as? Int == 500 && object["goal_ml"] as? Int == 2000, "\(object)")
        #expect(object["percent"] as? Int == 25 && object["left_ml"] as? Int == 1500, "\(object)")
        #expect(object["unsent"] as? Int == 0 && object["heard_today"] as? Bool == true, "\(object)")
    }

    @Test("login Mum says usernames are lowercase, before asking for a password")
    func lowercaseLogin() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let login = try mum.run(["login", "Mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 64, "\(login)")
        #expect(login.error.contains("usernames are lowercase: water-client login mum"), "\(login.error)")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
    }

    @Test("whoami names the server it asked")
    func whoamiNamesTheServer() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let whoami = try mum.run(["whoami"])
        #expect(
            whoami.output
                == "mum (mum), admin, UTC, on \(server.address)\n"
                + "privacy full: others see everything of yours on the board, millilitres too\n",
            "\(whoami.output)")
    }

    @Test("login reaches the server (and settles its certificate) before it reads a password")
    func loginConnectsFirst() throws {
        let server = try ServerProcess.fresh(tls: true)
        let mum = server.cli("mum")
        let address = server.address
        #expect(server.stop() == 0)
        // Nobody there: said at once, and the password on standard input is never read.
        let down = try mum.run(["--server", "\(address)", "login", "mum", "--password-stdin"], input: "")
        #expect(down.status == 69, "\(down)")
        #expect(!down.error.contains("no password given"), "\(down.error)")
    }

    @Test("a member asking for an admin's command is told so in words, not by the call's name")
    func adminOnlyInWords() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(
            try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let dad = server.cli("dad")
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let refused = try dad.run(["member", "rename", "mum", "--display-name", "Mother"])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.error == "water-client: only an admin may do that; ask an admin of the household\n")
    }

    @Test("edit --amount 0 says the range, and nothing of the usual cup (which edit has no use for)")
    func editAmountZero() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        let id = try #require(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.first?.entryID)
        let edited = try mum.run(["edit", id, "--amount", "0"])
        #expect(edited.status == 65)
        #expect(edited.error == "water-client: a drink must be between 1 and 2000 ml, got 0\n", "\(edited.error)")
    }

    @Test("issue 31: log, edit --amount, goal and cup read an amount alike (0.5l, 33cl, 250ml)")
    func oneAmountGrammar() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "0.5l"]).status == 0)
        let id = try #require(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.first?.entryID)
        #expect(try mum.run(["edit", id, "--amount", "33cl"]).status == 0)
        #expect(try mum.json(WaterV1.GetTodayResponse.self, ["today"]).entries.map(\.amountMl) == [330])
        #expect(try mum.run(["goal", "2.5l"]).status == 0)
        #expect(try mum.run(["cup", "300ml"]).status == 0)
        let settings = try #require(try mum.json(WaterV1.GetSettingsResponse.self, ["cup"]).settings)
        #expect(settings.dailyGoalMl == 2500 && settings.usualCupMl == 300, "\(settings)")
        for command in [
            ["log", "0.3333l"], ["edit", id, "--amount", "0.3333l"], ["goal", "2,5l"], ["cup", "1.2.3"],
        ] {
            let refused = try mum.run(command)
            #expect(refused.status == 64, "\(command): \(refused)")
            #expect(refused.error.contains("an amount is whole millilitres (250, 250ml) or litres"), "\(refused.error)")
        }
    }

    @Test("logout with the server down keeps the session and names --local, which forgets it here")
    func logoutLocal() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(server.stop() == 0)
        let down = try mum.run(["logout"])
        #expect(down.status == 69 && down.error.contains("water-client logout --local"), "\(down)")
        #expect(try mum.run(["whoami"]).error.contains("not logged in") == false, "the session was kept")
        let local = try mum.run(["logout", "--local"])
        #expect(local.status == 0 && local.output.hasPrefix("forgot the session on this computer"), "\(local)")
        #expect(try mum.run(["whoami"]).status == 77)
    }

    @Test("import reads a CSV saved with a byte-order mark, and says why a file cannot be read")
    func importFiles() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try mum.run(["export", "--format", "csv", "--output", "\(folder)/mum.csv"]).status == 0)
        let csv = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/mum.csv"))
        try (Data([0xEF, 0xBB, 0xBF]) + csv).write(to: URL(fileURLWithPath: "\(folder)/excel.csv"))
        let imported = try mum.run(["import", "\(folder)/excel.csv"])
        #expect(imported.status == 0, "\(imported.error)")
        let missing = try mum.run(["import", "\(folder)/nothing.csv"])
        #expect(missing.status == 65, "\(missing)")
        #expect(
            missing.error.contains("cannot read \(folder)/nothing.csv: No such file or directory"), "\(missing.error)")
    }

    @Test("week ends no line in a blank; nudge on says its hours in words")
    func wordsAndBlanks() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["goal", "500"]).status == 0)
        #expect(try mum.run(["log", "600"]).status == 0)
        let week = try mum.run(["week"]).output
        #expect(week.contains("✓"), "\(week)")
        #expect(!week.split(separator: "\n").contains { $0.hasSuffix(" ") }, "\(week.debugDescription)")
        let nudge = try mum.run(["nudge", "on", "--hours", "06:00-22:00"])
        #expect(nudge.output == "nudges are on, between 06:00 and 22:00 in your time zone\n", "\(nudge.output)")
    }

    @Test("member ls shows every username whole, however long, and the names stay in one column")
    func memberListKeepsUsernames() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let long = "grandmother_margaret"
        #expect(
            try mum.run(
                ["member", "add", long, "--display-name", "Gran", "--password-stdin"], input: "gran-password-1\n"
            )
            .status == 0)
        let lines = try mum.run(["member", "ls"]).output.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(long) Gran"), "\(lines)")
        #expect(
            lines.contains { $0.hasPrefix("mum" + String(repeating: " ", count: long.count - 3) + " ") }, "\(lines)")
        // The name copied from the list is the member's.
        #expect(try mum.run(["member", "rename", long, "--display-name", "Granny"]).status == 0)
    }

    @Test("board --week last and habit ls --week last are the week before the server's current one, in any zone")
    func lastWeekIsTheServers() throws {
        // The server's clock at Wednesday 2026-06-10 12:00 UTC (week 24): not this terminal's.
        let server = try ServerProcess.fresh(["--clock", "1781092800000"])
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        // A member 14 hours ahead of the household (UTC): still week 24 there at that moment.
        #expect(try mum.run(["zone", "Pacific/Kiritimati"]).status == 0)
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        let board = try mum.json(WaterV1.GetBoardResponse.self, ["board", "--week", "last"])
        #expect(board.board?.week == "2026-W23", "\(board)")
        #expect(try mum.json(WaterV1.GetBoardResponse.self, ["board"]).board?.week == "2026-W24")
        let habits = try mum.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls", "--week", "last"])
        #expect(habits.week == "2026-W23", "\(habits)")
    }

    @Test("import of another member's export is refused unless --yes (JSON and CSV); one's own goes in")
    func importOfAnotherMember() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let dad = server.cli("dad")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try dad.run(["login", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        #expect(try mum.run(["log", "1500"]).status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for format in ["json", "csv"] {
            let file = "\(folder)/mum.\(format)"
            #expect(try mum.run(["export", "--format", format, "--output", file]).status == 0)
            let refused = try dad.run(["import", file])
            #expect(refused.status == 65, "\(format): \(refused)")
            #expect(
                refused.error.contains("is the export of mum, and you are logged in as dad; nothing was imported"),
                "\(refused.error)")
            #expect(try dad.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 0)
            // Her own export goes back in (changing nothing).
            #expect(try mum.run(["import", file]).status == 0)
        }
        #expect(try dad.run(["import", "--yes", "\(folder)/mum.json"]).status == 0)
        #expect(try dad.json(WaterV1.GetTodayResponse.self, ["today"]).day?.amountMl == 1500)
    }

    @Test("todo done N and rm N mean the item this terminal showed at N: after another's mv, or typed twice, refused")
    func todoNumbersAsShown() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        // Each with a state directory (and so a cache) of their own, as on two computers.
        let mum = try OfflineTests.member(server)
        #expect(try mum.run(["member", "add", "dad", "--password-stdin"], input: "dad-password-1\n").status == 0)
        let dad = try OfflineTests.member(server, "dad", password: "dad-password-1")
        for text in ["buy filters", "call grandma", "water plants", "fix the tap", "descale kettle"] {
            #expect(try mum.run(["todo", "add", text]).status == 0)
        }
        #expect(try mum.run(["todo", "ls"]).output.contains(" 1. [ ] buy filters"))
        #expect(try dad.run(["todo", "mv", "4", "1"]).output.contains(" 1. [ ] fix the tap"))
        // Mum's 1 is still "buy filters", as her terminal showed it: refused, with the list now.
        let refused = try mum.run(["todo", "done", "1"])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.error.contains("the list has changed since this terminal showed it"), "\(refused.error)")
        #expect(refused.error.contains(" 1. [ ] fix the tap"), "\(refused.error)")
        #expect(!(try mum.run(["todo", "ls"]).output.contains("[x]")))
        // Read again, the numbers are the new list's, and done is safe to repeat.
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: buy filters"))
        #expect(try mum.run(["todo", "done", "2"]).output.contains("done: buy filters"))
        // rm 4 typed twice removes one item, not two.
        #expect(try mum.run(["todo", "rm", "4"]).output.contains("removed: water plants"))
        let again = try mum.run(["todo", "rm", "4"])
        #expect(again.status == 65 && again.error.contains("4 is another item now"), "\(again)")
        let left = try mum.run(["todo", "ls"]).output
        #expect(left.contains("descale kettle") && left.split(separator: "\n").count == 4, "\(left)")
    }

    @Test("a wrong --fingerprint is the one typed, not 'pinned', and ends as a certificate not trusted does (77)")
    func wrongFingerprint() throws {
        let server = try ServerProcess.fresh(tls: true)
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        let wrong = "SHA256:" + String(repeating: "A", count: 43)
        let login = try mum.run(
            ["login", "mum", "--password-stdin", "--fingerprint", wrong], input: adminPassword + "\n")
        #expect(login.status == 77, "\(login)")
        #expect(login.error.contains("not \(wrong), the one --fingerprint gave; nothing was sent"), "\(login.error)")
        #expect(!login.error.contains("pinned"), "\(login.error)")
        // Not trusted when there is no terminal to ask: the same code.
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 77)
    }

    @Test("a mistyped time zone is answered with the nearest name: Tokio -> Asia/Tokyo, new york -> America/New_York")
    func nearestZone() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for (typed, near) in [
            ("Tokio", "Asia/Tokyo"), ("new york", "America/New_York"), ("Europe/Berln", "Europe/Berlin"),
        ] {
            let refused = try mum.run(["zone", typed])
            #expect(refused.status == 65, "\(refused)")
            #expect(refused.error.contains("did you mean \(near)?"), "\(typed): \(refused.error)")
        }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("zone-\(UUID())").path
        let made = try run(
            "water-server", ["init", "--data", data, "--admin", "mum", "--password-stdin", "--time-zone", "Tokio"],
            input: adminPassword + "\n")
        #expect(made.status == 64 && made.error.contains("(did you mean Asia/Tokyo?)"), "\(made)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    @Test("names with emoji, accents or East Asian characters line up in the board and habit tables")
    func tablesByDisplayWidth() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "rename", "mum", "--display-name", "Zoë 🐳"]).status == 0)
        #expect(
            try mum.run(
                ["member", "add", "taro", "--display-name", "山田", "--password-stdin"], input: "taro-password-1\n"
            )
            .status == 0)
        // 14 columns for the name, then a space, then the bar: "Zoë 🐳" takes 6, "山田" 4.
        let board = try mum.run(["board"]).output
        #expect(board.contains("Zoë 🐳" + String(repeating: " ", count: 9) + "░"), "\(board)")
        #expect(board.contains("山田" + String(repeating: " ", count: 11) + "░"), "\(board)")
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        #expect(try mum.run(["habit", "add", "読書"]).status == 0)
        // The names' column is 10 wide here (for the week's label), then two spaces.
        let habits = try mum.run(["habit", "ls"]).output
        #expect(habits.contains("Read" + String(repeating: " ", count: 8) + "·"), "\(habits)")
        #expect(habits.contains("読書" + String(repeating: " ", count: 8) + "·"), "\(habits)")
    }

    @Test("two different passwords typed at the prompts say they differ, not 'no password given'; no one is added")
    func passwordsDiffer() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let answers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Python/tty_answers.py")
        let typed = try ChildProcess.run(
            "/usr/bin/python3",
            [
                answers.path, "password for ben", "ben-password-1", "again", "ben-password-2", "--",
                productsDirectory.appendingPathComponent("water-client").path, "member", "add", "ben",
            ], environment: mum.environment, seconds: 60)
        #expect(typed.status == 64, "\(typed)")
        #expect(typed.output.contains("the two passwords typed differ; nothing was changed"), "\(typed.output)")
        #expect(!typed.output.contains("no password given"), "\(typed.output)")
        #expect(!(try mum.run(["member", "ls"]).output.contains("ben")))
    }

    @Test("an import's refused drink names its line (CSV) or its place (JSON), and nothing is imported")
    func importErrorsNameTheLine() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        #expect(try mum.run(["log", "300"]).status == 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try mum.run(["export", "--format", "csv", "--output", "\(folder)/mum.csv"]).status == 0)
        #expect(try mum.run(["export", "--output", "\(folder)/mum.json"]).status == 0)
        var lines = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8).split(separator: "\n").map(
            String.init)
        let line = try #require(lines.lastIndex { $0.hasPrefix("entry,") })
        lines[line] = lines[line].replacing(",300,", with: ",5000,")
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(folder)/bad.csv", atomically: true, encoding: .utf8)
        let csv = try mum.run(["import", "\(folder)/bad.csv"])
        #expect(csv.status == 65, "\(csv)")
        #expect(
            csv.error.contains("line \(line + 1) (drink ")
                && csv.error.contains("a drink must be between 1 and 2000 ml"),
            "\(csv.error)")
        // The JSON export with its second drink at 0 ml.
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/mum.json"))
        var histories = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var entries = try #require(histories[0]["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        entries[1]["amount_ml"] = 0
        histories[0]["entries"] = entries
        try JSONSerialization.data(withJSONObject: histories).write(to: URL(fileURLWithPath: "\(folder)/bad.json"))
        let refused = try mum.run(["import", "\(folder)/bad.json"])
        #expect(refused.status == 65 && refused.error.contains("entry 2 of \(folder)/bad.json (drink "), "\(refused)")
        #expect(refused.error.contains("a drink must be between 1 and 2000 ml, got 0"), "\(refused)")
    }
}
