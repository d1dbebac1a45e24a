import Glibc

/// What a command line asks for, once checked against the program's ``ProgramSpec``.
public enum CommandRequest: Sendable {
    /// `--help`, `-h` or `help ...`: the help of the command at this path (empty: the overview).
    case help([String])
    case version
    /// A command to run; its options are known to be its own.
    case run(CommandSpec)
}

extension ProgramSpec {
    /// The command a process is to run. `--help` and `--version` are answered here, on standard
    /// output, and end the process with 0.
    public func commandToRun(_ arguments: inout Arguments, protocolVersion: UInt32) throws(UsageError) -> CommandSpec {
        switch try resolve(&arguments) {
        case .help(let path):
            Terminal.print(help(path))
        case .version:
            Terminal.print(versionLine(protocolVersion: protocolVersion))
        case .run(let command):
            return command
        }
        exit(ExitCode.ok.rawValue)
    }

    /// Takes the command's words, `-h`, `--help` and `--version` out of `arguments` (whose global
    /// options are already taken) and checks every option left against the command's own, so a
    /// mistyped command or option is refused, with a suggestion, before anything runs.
    public func resolve(_ arguments: inout Arguments) throws(UsageError) -> CommandRequest {
        let wantsHelp = arguments.flag("help") || arguments.shortFlag("h")
        if arguments.flag("version") { return .version }
        guard let first = arguments.positional() else { return .help([]) }
        if first == "help" {
            var path: [String] = []
            while let word = arguments.positional() { path.append(word) }
            return .help(path.isEmpty && wantsHelp ? ["help"] : try known(path))
        }
        var path = try known([first])
        let subcommands = subcommands(of: first)
        // A group may run a command of its own (`outbox` lists, `outbox retry` retries) when
        // the next word is not one of its subcommands.
        let names = subcommands.map { $0.path[1] }
        let runsItself = command(path) != nil && !names.contains(arguments.nextWord ?? "")
        if runsItself, let word = arguments.nextWord, !word.hasPrefix("-"),
            let likely = Suggestion.closest(to: word, among: names)
        {
            throw UsageError("unknown \(first) command \"\(word)\" (did you mean \"\(likely)\"?)")
        }
        if !subcommands.isEmpty && !runsItself {
            guard let second = arguments.positional() else {
                if wantsHelp { return .help(path) }
                throw UsageError("\(first) needs one of: \(names.joined(separator: ", "))")
            }
            path = try known(path + [second])
        }
        if wantsHelp { return .help(path) }
        let command = command(path)!
        try checkOptions(arguments, of: command)
        return .run(command)
    }

    /// `path` when it names a command or a group of subcommands; else what was probably meant.
    private func known(_ path: [String]) throws(UsageError) -> [String] {
        guard let first = path.first else { return [] }
        if first.hasPrefix("-") {
            let name = String(first.drop { $0 == "-" })
            let suggestion = Suggestion.closest(to: name, among: globalOptions.map(\.name)).map {
                " (did you mean --\($0)?)"
            }
            throw UsageError("unknown option \(first)\(suggestion ?? "")")
        }
        guard topWords.contains(first) else {
            throw UsageError("unknown command \"\(first)\"" + Suggestion.didYouMean(first, among: topWords))
        }
        let subcommands = subcommands(of: first)
        guard path.count > 1 else { return path }
        let names = subcommands.map { $0.path[1] }
        guard names.contains(path[1]) else {
            let what = subcommands.isEmpty ? "\(first) takes no subcommand" : "unknown \(first) command"
            throw UsageError("\(what) \"\(path[1])\"" + Suggestion.didYouMean(path[1], among: names))
        }
        return Array(path.prefix(2))
    }

    private func checkOptions(_ arguments: Arguments, of command: CommandSpec) throws(UsageError) {
        let own = command.options.map(\.name)
        for word in arguments.optionWords {
            let name = word.hasPrefix("--") ? String(word.dropFirst(2).prefix { $0 != "=" }) : String(word.dropFirst())
            guard !word.hasPrefix("--") || !own.contains(name) else { continue }
            let candidates = own + globalOptions.map(\.name)
            let suggestion = Suggestion.closest(to: name, among: candidates).map { " (did you mean --\($0)?)" } ?? ""
            throw UsageError(
                "unknown option \(word.prefix { $0 != "=" }) for \(command.path.joined(separator: " "))\(suggestion)")
        }
    }
}
