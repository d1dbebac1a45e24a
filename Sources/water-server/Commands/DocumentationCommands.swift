import WaterCLI

/// `help [COMMAND]`. ``ProgramSpec/resolve(_:)`` answers it before any command runs, as it
/// answers `--help`; it is in the table for its line in the help, the completions and the manual.
enum HelpCommand: ServerCommand {
    static let spec = CommandSpec("help", "[COMMAND]", summary: "show the help of a command", examples: ["help repair"])

    static func run(_ arguments: inout Arguments) throws {
        var path: [String] = []
        while let word = arguments.positional() { path.append(word) }
        Terminal.print(serverCommands.program.help(path))
    }
}

/// `completion SHELL`: the completion script for bash, zsh or fish.
enum CompletionCommand: ServerCommand {
    static let spec = CommandSpec(
        "completion", "SHELL", summary: "print the completion script for bash, zsh or fish",
        examples: ["completion fish > ~/.config/fish/completions/water-server.fish"],
        argumentChoices: ProgramSpec.Shell.allCases.map(\.rawValue))

    static func run(_ arguments: inout Arguments) throws {
        try serverCommands.program.printCompletion(&arguments)
    }
}

/// `manpage`: this program's manual page, in roff.
enum ManualPageCommand: ServerCommand {
    static let spec = CommandSpec(
        "manpage", summary: "print this manual page in roff (man 8 water-server)",
        examples: ["manpage | man -l -"])

    static func run(_ arguments: inout Arguments) throws {
        try serverCommands.program.printManualPage(&arguments)
    }
}
