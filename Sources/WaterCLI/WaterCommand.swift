/// One command of a program, as swift-argument-parser's `ParsableCommand` is one: what it
/// accepts, written once as its ``CommandSpec``, beside what it does.
///
/// A program lists its commands, as types, in one ``CommandTable``. Its `--help`, `help CMD`,
/// the "did you mean" suggestions, the completions, the manual page and the dispatch are all
/// made from that list, so there is no second list of names for a command to be missing from.
public protocol WaterCommand<Context>: Sendable {
    /// What the program hands every command: the arguments left once the command's words are
    /// taken, and whatever else it sets up once a run (`water-client`'s server and session).
    associatedtype Context

    /// The command's words, arguments, options, help and examples.
    static var spec: CommandSpec { get }

    /// Runs the command. Its words are already taken from the command line, and every option
    /// left is known to be one of `spec`'s or a global one.
    ///
    /// - Throws: ``UsageError`` when what is left does not parse (exit 64); ``ReportedFailure``
    ///   when the command has already said what went wrong; anything else, for the program to
    ///   report.
    static func run(_ context: inout Context) throws
}

/// A program's commands, as types, in the order its `--help` lists them, and the
/// ``ProgramSpec`` made from them.
public struct CommandTable<Context>: Sendable {
    /// What the command line accepts, each command's spec taken from its type.
    public let program: ProgramSpec
    /// The commands, in the order of `program.commands`.
    public let commands: [any WaterCommand<Context>.Type]

    /// - Important: two commands with the same words are a programmer's error, and trap.
    public init(
        name: String, manualSection: Int, version: String, summary: String, description: String,
        globalOptions: [OptionSpec], commands: [any WaterCommand<Context>.Type],
        sections: [(title: String, text: String)]
    ) {
        let specs = commands.map { $0.spec }
        let repeated = Self.repeatedPaths(specs)
        precondition(repeated.isEmpty, "\(name) has more than one command called \(repeated)")
        self.program = ProgramSpec(
            name: name, manualSection: manualSection, version: version, summary: summary, description: description,
            globalOptions: globalOptions, commands: specs, sections: sections)
        self.commands = commands
    }

    /// The paths that more than one of `specs` has, each once, as they are typed (`todo add`).
    public static func repeatedPaths(_ specs: [CommandSpec]) -> [String] {
        var seen = Set<[String]>()
        var repeated: [String] = []
        for spec in specs where !seen.insert(spec.path).inserted {
            let words = spec.path.joined(separator: " ")
            if !repeated.contains(words) { repeated.append(words) }
        }
        return repeated
    }

    /// The command at exactly `path`.
    public func command(_ path: [String]) -> (any WaterCommand<Context>.Type)? {
        program.commands.firstIndex { $0.path == path }.map { commands[$0] }
    }

    /// The command a process is to run. `--help` and `--version` are answered here, on standard
    /// output, and end the process with 0 (``ProgramSpec/commandToRun(_:protocolVersion:)``).
    public func commandToRun(_ arguments: inout Arguments, protocolVersion: UInt32) throws(UsageError)
        -> any WaterCommand<Context>.Type
    {
        let spec = try program.commandToRun(&arguments, protocolVersion: protocolVersion)
        return command(spec.path)!
    }
}

/// A command that has told, in its own output, what went wrong: the process ends with
/// `exitCode` and prints nothing more (`water-server check` finding a damaged archive,
/// `water-client sync` when the server refused a saved write).
public struct ReportedFailure: Error, Sendable {
    public var exitCode: ExitCode

    public init(exitCode: ExitCode) {
        self.exitCode = exitCode
    }
}
