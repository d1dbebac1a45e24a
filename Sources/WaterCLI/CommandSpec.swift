/// What a program's command line accepts, written once: `--help`, `help CMD`, the "did you
/// mean" suggestions, the shell completions and the manual page are all made from it, and a
/// command line is checked against it before any command runs, so none of them can promise an
/// option the program does not take.
public struct ProgramSpec: Sendable {
    public var name: String
    /// 1 for a user command, 8 for an administrator's.
    public var manualSection: Int
    public var version: String
    /// One line, for the manual's NAME and the top of `--help`.
    public var summary: String
    /// The paragraphs under the usage line of `--help` and the manual's DESCRIPTION.
    public var description: String
    /// Options every command takes (taken out of the command line before it runs).
    public var globalOptions: [OptionSpec]
    public var commands: [CommandSpec]
    /// Further sections of the manual and the end of `--help`: exit codes, environment, files.
    public var sections: [(title: String, text: String)]

    public init(
        name: String, manualSection: Int, version: String, summary: String, description: String,
        globalOptions: [OptionSpec], commands: [CommandSpec], sections: [(title: String, text: String)]
    ) {
        self.name = name
        self.manualSection = manualSection
        self.version = version
        self.summary = summary
        self.description = description
        self.globalOptions = globalOptions
        self.commands = commands
        self.sections = sections
    }

    /// The command at exactly `path`.
    public func command(_ path: [String]) -> CommandSpec? {
        commands.first { $0.path == path }
    }

    /// The first words of every command, in the order they were written, each once.
    public var topWords: [String] {
        var seen = Set<String>()
        return commands.map { $0.path[0] }.filter { seen.insert($0).inserted }
    }

    /// The subcommands under a first word (`add`, `ls`, ... under `todo`); empty for a command
    /// that has none.
    public func subcommands(of word: String) -> [CommandSpec] {
        commands.filter { $0.path.count == 2 && $0.path[0] == word }
    }

    /// Every option that takes a value, anywhere: the completions skip their values when they
    /// work out which command is being typed.
    public var optionsTakingValues: [OptionSpec] {
        var seen = Set<String>()
        return (globalOptions + commands.flatMap(\.options)).filter { $0.value != nil && seen.insert($0.name).inserted }
    }
}

/// One command (`log`) or subcommand (`todo add`).
public struct CommandSpec: Sendable {
    public var path: [String]
    /// The positional part of the synopsis, e.g. `[ML]` or `ID POSITION`.
    public var arguments: String
    /// One line, for the command lists and the completions.
    public var summary: String
    /// What `COMMAND --help` explains under its usage line.
    public var details: String
    public var options: [OptionSpec]
    /// Complete command lines, without the program's name.
    public var examples: [String]
    /// Fixed values of the first positional argument, offered by the completions.
    public var argumentChoices: [String]

    public init(
        _ path: String, _ arguments: String = "", summary: String, details: String = "", options: [OptionSpec] = [],
        examples: [String], argumentChoices: [String] = []
    ) {
        self.path = path.split(separator: " ").map(String.init)
        self.arguments = arguments
        self.summary = summary
        self.details = details
        self.options = options
        self.examples = examples
        self.argumentChoices = argumentChoices
    }

    /// `todo add TEXT [--json]`-style synopsis (without the program's name); commands with
    /// many options show `[options]`.
    public var synopsis: String {
        var parts = [path.joined(separator: " ")]
        if !arguments.isEmpty { parts.append(arguments) }
        if options.count > 4 {
            parts += options.filter(\.required).map(\.synopsis) + ["[options]"]
        } else {
            parts += options.map(\.synopsis)
        }
        return parts.joined(separator: " ")
    }
}

/// An option: a flag (`--yes`) or one with a value (`--at WHEN`).
public struct OptionSpec: Sendable {
    public var name: String
    /// The value's placeholder (`WHEN`), nil for a flag. FILE, PATH and DIR complete as paths.
    public var value: String?
    public var summary: String
    /// Fixed values, offered by the completions.
    public var choices: [String]
    /// Whether the command cannot run without it (shown without brackets).
    public var required: Bool

    public init(
        _ name: String, _ value: String? = nil, _ summary: String, choices: [String] = [], required: Bool = false
    ) {
        self.name = name
        self.value = value
        self.summary = summary
        self.choices = choices
        self.required = required
    }

    public var usage: String { value.map { "--\(name) \($0)" } ?? "--\(name)" }

    /// As a synopsis shows it: `--data DIR`, or `[--at WHEN]` when it may be left out.
    public var synopsis: String { required ? usage : "[\(usage)]" }

    /// Whether the value is a file system path (completed as one).
    public var takesPath: Bool { ["FILE", "PATH", "DIR"].contains(value ?? "") }
}
