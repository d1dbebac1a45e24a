import Foundation
import Testing

/// What water-client prints, through the real binaries (issue 22): bars, plurals, tables that line
/// up whatever the names, lines that end in no blank, and refusals in words.
@Suite("What water-client prints, end to end", .serialized)
struct ClientOutputTests {
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
}
