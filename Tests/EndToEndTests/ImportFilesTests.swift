import Foundation
import Testing
import WaterProtocol

/// Importing files as people have them, through the real binaries (issue 22): saved by a
/// spreadsheet, someone else's, or with a drink the server refuses.
@Suite("Importing files, end to end", .serialized)
struct ImportFilesTests {
    /// A new, empty folder in the temporary directory, named `prefix-UUID`; the caller removes it.
    private static func newFolder(_ prefix: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("import reads a CSV saved with a byte-order mark, and says why a file cannot be read")
    func importFiles() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        let folder = try Self.newFolder("import")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try mum.run(["export", "--format", "csv", "--output", "\(folder)/mum.csv"]).status == 0)
        let csv = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/mum.csv"))
        try (Data([0xEF, 0xBB, 0xBF]) + csv).write(to: URL(fileURLWithPath: "\(folder)/excel.csv"))
        let imported = try mum.run(["import", "\(folder)/excel.csv"])
        #expect(imported.status == 0, "\(imported.error)")
        // Issue 32, item 22: a file that cannot be read is EX_NOINPUT (66), in the system's words.
        let missing = try mum.run(["import", "\(folder)/nothing.csv"])
        #expect(missing.status == 66, "\(missing)")
        #expect(
            missing.error.contains("cannot read \(folder)/nothing.csv: No such file or directory"), "\(missing.error)")
        let directory = try mum.run(["import", folder])
        #expect(directory.status == 66, "\(directory)")
        #expect(directory.error.contains("cannot read \(folder): Is a directory"), "\(directory.error)")
    }

    @Test("issue 32 item 22: a CSV export keeps named cups, the usual drink and privacy, and import takes them")
    func csvKeepsSettings() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let dad = try server.addedMember("dad", by: mum)
        for command in [
            ["cup", "300", "--drink", "tea"], ["cup", "add", "mug", "350"],
            ["cup", "add", "latte", "250", "--drink", "milk"],
            ["privacy", "percent"], ["habit", "add", "=HYPERLINK(\"http://evil.example\")"],
        ] {
            #expect(try mum.run(command).status == 0, "\(command)")
        }
        let folder = try Self.newFolder("settings")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try mum.run(["export", "--format", "csv", "--output", "\(folder)/mum.csv"]).status == 0)
        let csv = try String(contentsOfFile: "\(folder)/mum.csv", encoding: .utf8)
        #expect(csv.contains(",\"'=HYPERLINK(\"\"http://evil.example\"\")\","), "\(csv)")
        let imported = try dad.run(["import", "--yes", "\(folder)/mum.csv"])
        #expect(imported.status == 0, "\(imported)")
        let settings = try #require(try dad.json(WaterV1.GetSettingsResponse.self, ["cup"]).settings)
        #expect(settings.usualCupMl == 300 && settings.usualDrink == "tea", "\(settings)")
        #expect(settings.cups.map(\.name).sorted() == ["latte", "mug"], "\(settings)")
        #expect(settings.cups.first { $0.name == "latte" }?.drink == "milk")
        #expect(settings.privacy == .percent, "\(settings)")
        let habits = try dad.json(WaterV1.ListHabitWeekResponse.self, ["habit", "ls"])
        #expect(habits.habits.map { $0.habit?.name } == ["=HYPERLINK(\"http://evil.example\")"], "\(habits)")
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
        let folder = try Self.newFolder("import")
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

    @Test("an import's refused drink names its line (CSV) or its place (JSON), and nothing is imported")
    func importErrorsNameTheLine() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "250"]).status == 0)
        #expect(try mum.run(["log", "300"]).status == 0)
        let folder = try Self.newFolder("lines")
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
