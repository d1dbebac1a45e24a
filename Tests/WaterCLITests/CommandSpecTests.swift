import Testing

@testable import WaterCLI

/// The command line's pure parts: resolving a command line against a spec, and suggestions.
@Suite("Command specs")
struct CommandSpecTests {
    let program = ProgramSpec(
        name: "tool", manualSection: 1, version: "1.0", summary: "a tool", description: "Does things.",
        globalOptions: [OptionSpec("json", nil, "JSON")],
        commands: [
            CommandSpec("log", "[ML]", summary: "log", options: [OptionSpec("at", "WHEN", "when")], examples: ["log"]),
            CommandSpec("todo add", "TEXT", summary: "add", examples: ["todo add x"]),
            CommandSpec("todo ls", summary: "list", examples: ["todo ls"]),
            CommandSpec("help", "[COMMAND]", summary: "help", examples: ["help log"]),
        ],
        sections: [])

    func resolve(_ words: [String]) throws(UsageError) -> (CommandRequest, Arguments) {
        var arguments = Arguments(words)
        _ = arguments.flag("json")
        return (try program.resolve(&arguments), arguments)
    }

    func path(_ request: CommandRequest) -> [String]? {
        switch request {
        case .run(let command): command.path
        case .help(let path): ["help:"] + path
        case .version: ["version"]
        }
    }

    @Test("commands and subcommands are found; what is left are the command's own words")
    func found() throws {
        let (request, arguments) = try resolve(["todo", "add", "buy", "filters"])
        #expect(path(request) == ["todo", "add"])
        var rest = arguments
        #expect(rest.positional() == "buy" && rest.positional() == "filters" && rest.positional() == nil)
        #expect(path(try resolve(["log", "--at", "21:30", "250"]).0) == ["log"])
        #expect(path(try resolve(["log", "--at=21:30"]).0) == ["log"])
        #expect(path(try resolve(["--json", "log"]).0) == ["log"])
    }

    @Test("-h and --help anywhere, help CMD, --version")
    func help() throws {
        #expect(path(try resolve(["log", "-h"]).0) == ["help:", "log"])
        #expect(path(try resolve(["todo", "add", "--help"]).0) == ["help:", "todo", "add"])
        #expect(path(try resolve(["todo", "--help"]).0) == ["help:", "todo"])
        #expect(path(try resolve(["help", "todo", "ls"]).0) == ["help:", "todo", "ls"])
        #expect(path(try resolve(["help", "--help"]).0) == ["help:", "help"])
        #expect(path(try resolve([]).0) == ["help:"])
        #expect(path(try resolve(["--version"]).0) == ["version"])
        // After `--`, -h is a word like any other.
        #expect(path(try resolve(["todo", "add", "--", "-h"]).0) == ["todo", "add"])
    }

    @Test(
        "mistakes are usage errors naming the likely word",
        arguments: [
            (["lgo"], "unknown command \"lgo\" (did you mean \"log\"?)"),
            (["zzz"], "unknown command \"zzz\""),
            (["todo"], "todo needs one of: add, ls"),
            (["todo", "sl"], "unknown todo command \"sl\" (did you mean \"ls\"?)"),
            (["log", "x"], nil),
            (["log", "--ta", "1"], "unknown option --ta for log (did you mean --at?)"),
            (["log", "--jsn"], "unknown option --jsn for log (did you mean --json?)"),
            (["log", "-x"], "unknown option -x for log"),
            (["-x"], "unknown option -x"),
            (["help", "tood"], "unknown command \"tood\" (did you mean \"todo\"?)"),
        ])
    func mistakes(words: [String], message: String?) {
        do {
            _ = try resolve(words)
            #expect(message == nil, "\(words) resolved")
        } catch {
            #expect(error.message == message, "\(words)")
        }
    }

    @Test("a negative number is a value, not an option")
    func negativeNumbers() throws {
        #expect(path(try resolve(["log", "-5"]).0) == ["log"])
    }

    @Test("suggestions: a started word, a swap, a typo; nothing for a stranger")
    func suggestions() {
        let words = ["history", "habit", "help", "log", "login", "logout", "status"]
        #expect(Suggestion.closest(to: "hist", among: words) == "history")
        #expect(Suggestion.closest(to: "stauts", among: words) == "status")
        #expect(Suggestion.closest(to: "lgo", among: words) == "log")
        #expect(Suggestion.closest(to: "lgoin", among: words) == "login")
        #expect(Suggestion.closest(to: "qqq", among: words) == nil)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(Suggestion.editDistance(Array("ab"), Array("ba")) == 1)
    }

    @Test("help shows the usage with every option, the details and the examples")
    func helpText() {
        let log = program.help(["log"])
        #expect(log.hasPrefix("usage: tool log [ML] [--at WHEN]\n"))
        #expect(log.contains("  --at WHEN  when") && log.contains("example:\n  tool log"))
        #expect(program.help(["todo"]).hasPrefix("usage: tool todo <add|ls> ..."))
        #expect(program.overview.contains("  todo add TEXT") && program.overview.contains("--json"))
    }
}
