import WaterCLI

/// `help [COMMAND]`. ``ProgramSpec/resolve(_:)`` answers it before any command runs, as it
/// answers `--help`; it is in the table for its line in the help, the completions and the manual.
enum HelpCommand: ClientCommand {
    static let spec = CommandSpec(
        "help", "[COMMAND]", summary: "show the help of a command", examples: ["help todo add"])

    static func run(_ invocation: inout Invocation) throws {
        var path: [String] = []
        while let word = invocation.arguments.positional() { path.append(word) }
        Terminal.print(clientCommands.program.help(path))
    }
}

/// `completion SHELL`: the completion script for bash, zsh or fish.
enum CompletionCommand: ClientCommand {
    static let spec = CommandSpec(
        "completion", "SHELL", summary: "print the completion script for bash, zsh or fish",
        details: "Prints the completion script for a shell (deploy/install installs them).",
        examples: ["completion bash > ~/.local/share/bash-completion/completions/water-client"],
        argumentChoices: ProgramSpec.Shell.allCases.map(\.rawValue))

    static func run(_ invocation: inout Invocation) throws {
        try clientCommands.program.printCompletion(&invocation.arguments)
    }
}

/// `manpage`: this program's manual page, in roff.
enum ManualPageCommand: ClientCommand {
    static let spec = CommandSpec(
        "manpage", summary: "print this manual page in roff (man 1 water-client)",
        examples: ["manpage | man -l -"])

    static func run(_ invocation: inout Invocation) throws {
        try clientCommands.program.printManualPage(&invocation.arguments)
    }
}
