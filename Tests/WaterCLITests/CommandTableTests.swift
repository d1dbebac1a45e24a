import Testing

@testable import WaterCLI

/// What a run of the small program below hands its commands: the arguments, and which command ran.
struct TrialRun {
    var arguments: Arguments
    var ran: [String] = []
}

enum TrialLog: WaterCommand {
    static let spec = CommandSpec(
        "log", "[ML]", summary: "log a drink", options: [OptionSpec("at", "WHEN", "when")], examples: ["log 250"])

    static func run(_ run: inout TrialRun) throws {
        _ = try run.arguments.option("at")
        run.ran.append("log \(run.arguments.positional() ?? "")")
        try run.arguments.finish()
    }
}

enum TrialTodoAdd: WaterCommand {
    static let spec = CommandSpec("todo add", "TEXT", summary: "add an item", examples: ["todo add x"])

    static func run(_ run: inout TrialRun) throws { run.ran.append("todo add") }
}

enum TrialTodoList: WaterCommand {
    static let spec = CommandSpec("todo ls", summary: "list the items", examples: ["todo ls"])

    static func run(_ run: inout TrialRun) throws { run.ran.append("todo ls") }
}

/// A group that runs a command of its own when no subcommand follows.
enum TrialOutbox: WaterCommand {
    static let spec = CommandSpec("outbox", summary: "what waits", examples: ["outbox"])

    static func run(_ run: inout TrialRun) throws { run.ran.append("outbox") }
}

enum TrialOutboxDrop: WaterCommand {
    static let spec = CommandSpec(
        "outbox drop", "[N]", summary: "forget one", options: [OptionSpec("all", nil, "every one")],
        examples: ["outbox drop 1"])

    static func run(_ run: inout TrialRun) throws { run.ran.append("outbox drop") }
}

enum TrialHelp: WaterCommand {
    static let spec = CommandSpec("help", "[COMMAND]", summary: "show the help of a command", examples: ["help log"])

    static func run(_ run: inout TrialRun) throws { run.ran.append("help") }
}

/// A program's commands as a table of types: what its help, suggestions and completions list,
/// and which code a command line reaches, all come from the one list.
@Suite("Command table")
struct CommandTableTests {
    static let commands: [any WaterCommand<TrialRun>.Type] = [
        TrialLog.self, TrialTodoAdd.self, TrialTodoList.self, TrialOutbox.self, TrialOutboxDrop.self, TrialHelp.self,
    ]
    let table = CommandTable<TrialRun>(
        name: "tool", manualSection: 1, version: "1.0", summary: "a tool", description: "Does things.",
        globalOptions: [OptionSpec("json", nil, "JSON")], commands: Self.commands, sections: [])

    /// Resolves `words` as a process would, then runs the command it names; what ran.
    func ran(_ words: [String]) throws -> [String] {
        var arguments = Arguments(words)
        guard case .run(let spec) = try table.program.resolve(&arguments) else { return ["(help or version)"] }
        let command = try #require(table.command(spec.path))
        var run = TrialRun(arguments: arguments)
        try command.run(&run)
        return run.ran
    }

    @Test("the program's commands are the table's specs, in its order")
    func specsFromTypes() {
        #expect(table.program.commands.map(\.path) == Self.commands.map { $0.spec.path })
        #expect(table.commands.count == Self.commands.count)
        #expect(table.program.topWords == ["log", "todo", "outbox", "help"])
    }

    @Test(
        "each command line reaches its own command's run, with its own words left",
        arguments: [
            (["log", "250"], ["log 250"]),
            (["log", "--at", "21:30", "300"], ["log 300"]),
            (["todo", "add", "buy", "filters"], ["todo add"]),
            (["todo", "ls"], ["todo ls"]),
            (["outbox"], ["outbox"]),
            (["outbox", "drop", "--all"], ["outbox drop"]),
            (["help", "log"], ["(help or version)"]),
            (["log", "--help"], ["(help or version)"]),
        ])
    func dispatch(words: [String], expected: [String]) throws {
        #expect(try ran(words) == expected)
    }

    @Test("every command but help is reached by its own words")
    func everyCommandReached() throws {
        for command in Self.commands where command.spec.path != ["help"] {
            let words = command.spec.path
            #expect(try ran(words).first?.hasPrefix(words.joined(separator: " ")) == true, "\(words)")
            #expect(table.command(words).map { ObjectIdentifier($0) } == ObjectIdentifier(command))
        }
        #expect(table.command(["todo"]) == nil)
        #expect(table.command(["nudge"]) == nil)
    }

    @Test("--help lists exactly the table's commands, each once, in its order")
    func helpListsTheTable() {
        let lines = table.program.overview.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = (lines.firstIndex(of: "commands:") ?? lines.count - 1) + 1
        let listed = lines[start...].prefix { !$0.isEmpty }.map { $0.trimmingPrefix("  ") }
        #expect(listed.count == Self.commands.count)
        for (line, command) in zip(listed, Self.commands) {
            #expect(line.hasPrefix(command.spec.synopsis + " "), "\(line)")
            #expect(line.hasSuffix(command.spec.summary), "\(line)")
        }
    }

    @Test("suggestions and completions know every command of the table, and only those")
    func suggestionsAndCompletions() throws {
        do {
            _ = try ran(["otbox"])
            Issue.record("otbox ran")
        } catch {
            #expect((error as? UsageError)?.message == "unknown command \"otbox\" (did you mean \"outbox\"?)")
        }
        do {
            _ = try ran(["todo", "sl"])
            Issue.record("todo sl ran")
        } catch {
            #expect((error as? UsageError)?.message == "unknown todo command \"sl\" (did you mean \"ls\"?)")
        }
        let bash = table.program.completion(for: .bash)
        for word in ["log", "todo", "outbox", "add", "ls", "drop", "--at", "--all"] {
            #expect(bash.contains(word), "\(word)")
        }
        #expect(!bash.contains("nudge"))
    }

    @Test("a command written twice in a table is found, once")
    func repeatedPaths() {
        let specs = [TrialLog.spec, TrialTodoAdd.spec, TrialLog.spec, TrialTodoList.spec, TrialLog.spec]
        #expect(CommandTable<TrialRun>.repeatedPaths(specs) == ["log"])
        #expect(CommandTable<TrialRun>.repeatedPaths(Self.commands.map { $0.spec }).isEmpty)
        #expect(CommandTable<TrialRun>.repeatedPaths([TrialTodoAdd.spec, TrialTodoAdd.spec]) == ["todo add"])
    }
}
