import FoundationEssentials
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `todo export [--output FILE]` and `todo import FILE`: the list and its history of who did what.
extension TodoCommand {
    enum Export: ClientCommand {
        static let spec = CommandSpec(
            "todo export", summary: "the household's list and who did which chore, out as JSON",
            details: """
                Writes every item of the household's list (chores with their due day, repeat, turn and
                rotation) and the history of who did what, as JSON, by the members' usernames.
                """,
            options: [OptionSpec("output", "FILE", "write to FILE (0600) instead of standard output")],
            examples: ["todo export --output list.json"])

        static func run(_ invocation: inout Invocation) throws {
            let output = try invocation.arguments.option("output")
            try invocation.arguments.finish()
            let client = try invocation.client()
            // The history in pages; the first carries the items.
            var whole = try client.call(WaterV1.ExportTodosRequest())
            while whole.history.count < Int(whole.historyTotal) {
                let page = try client.call(WaterV1.ExportTodosRequest(historyFrom: UInt32(whole.history.count)))
                guard !page.history.isEmpty else { break }
                whole.history += page.history
            }
            let text = JSONOutput.encode(whole, pretty: !(invocation.json && output == nil)) + "\n"
            guard let output else { return Terminal.write(1, text) }
            try TransferCommands.write(text, to: output)
            Terminal.error(
                "exported \(Format.counted(whole.items.count, "item", "items")) and "
                    + "\(Format.counted(whole.history.count, "completion", "completions")) to \(output)")
        }
    }

    enum Import: ClientCommand {
        static let spec = CommandSpec(
            "todo import", "FILE", summary: "read a todo export back (twice changes nothing)",
            details: """
                Adds the items of a todo export whose ids are not on the list, and the completions the
                history does not have yet, checked as todo add checks them; the members it names must
                have an account (removed or not). Importing twice changes nothing.
                """,
            examples: ["todo import list.json"])

        static func run(_ invocation: inout Invocation) throws {
            guard let path = invocation.arguments.positional() else {
                throw UsageError("todo import needs a file written by water-client todo export")
            }
            try invocation.arguments.finish()
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UnreadableFile(path: path, reason: UnreadableFile.reason(path))
            }
            let export: WaterV1.ExportTodosResponse
            do {
                export = try JSONDecoder().decode(WaterV1.ExportTodosResponse.self, from: data)
            } catch {
                throw WaterError(.invalidArgument, "\(path) is not a todo export of water-client")
            }
            let client = try invocation.client()
            var total = WaterV1.ImportTodosResponse()
            // In parts within the request limits: the items with the first.
            for part in TransferCommands.importParts(export.history.count, size: TodoList.completionsPerPart) {
                let added = try client.call(
                    WaterV1.ImportTodosRequest(
                        items: part.lowerBound == 0 ? export.items : [], history: Array(export.history[part])))
                total.itemsAdded += added.itemsAdded
                total.completionsAdded += added.completionsAdded
            }
            invocation.output(total) {
                "imported \(Format.counted(total.itemsAdded, "item", "items")) and "
                    + "\(Format.counted(total.completionsAdded, "completion", "completions")) "
                    + "(what was there already was left alone)"
            }
        }
    }
}
