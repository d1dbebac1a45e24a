/// `--help` as people read it on a terminal, made from the ``ProgramSpec``.
extension ProgramSpec {
    /// The help of the command (or group of subcommands) at `path`; the overview for `[]`.
    public func help(_ path: [String]) -> String {
        if path.isEmpty { return overview }
        if let command = command(path) {
            let subcommands = path.count == 1 ? subcommands(of: path[0]) : []
            guard !subcommands.isEmpty else { return help(of: command) }
            return help(of: command) + "\n\nalso:\n"
                + table(subcommands.map { ($0.synopsis, $0.summary) }).joined(separator: "\n")
        }
        return groupHelp(path[0])
    }

    /// `water-client 1.2.0 (protocol 1)`-style line for `--version`.
    public func versionLine(protocolVersion: UInt32) -> String {
        "\(name) \(version) (protocol version \(protocolVersion))"
    }

    public var overview: String {
        let globals = globalOptions.map(\.synopsis).joined(separator: " ")
        var lines = ["usage: \(name) \(globals.isEmpty ? "" : globals + " ")<command> [options]", ""]
        lines.append(wrapped(description, width: 96))
        lines += ["", "commands:"]
        lines += table(commands.map { ($0.synopsis, $0.summary) })
        lines += ["", "options (of every command):"]
        lines += table(
            (globalOptions + [OptionSpec("help", nil, "show the help of any command (also -h, or: help COMMAND)")]
                + [OptionSpec("version", nil, "show the version")]).map { ($0.usage, $0.summary) })
        for section in sections {
            lines += ["", "\(section.title.lowercased()):", indented(section.text)]
        }
        lines += ["", "`\(name) COMMAND --help` shows one command, with examples."]
        return lines.joined(separator: "\n")
    }

    private func help(of command: CommandSpec) -> String {
        var lines = ["usage: \(name) \(usageLine(command))", ""]
        lines.append(command.details.isEmpty ? sentence(command.summary) : command.details)
        if !command.options.isEmpty {
            lines += ["", "options:"]
            lines += table(command.options.map { ($0.usage, $0.summary) })
        }
        lines += ["", command.examples.count == 1 ? "example:" : "examples:"]
        lines += command.examples.map { "  \(name) \($0)" }
        if !globalOptions.isEmpty {
            lines += ["", "\(globalOptions.map { "--\($0.name)" }.joined(separator: ", ")): see \(name) --help"]
        }
        return lines.joined(separator: "\n")
    }

    private func groupHelp(_ word: String) -> String {
        let subcommands = subcommands(of: word)
        var lines = ["usage: \(name) \(word) <\(subcommands.map { $0.path[1] }.joined(separator: "|"))> ...", ""]
        lines += table(subcommands.map { ($0.synopsis, $0.summary) })
        lines += ["", "`\(name) \(word) COMMAND --help` shows one, with examples."]
        return lines.joined(separator: "\n")
    }

    /// The full usage of a command: every option spelled out.
    func usageLine(_ command: CommandSpec) -> String {
        ([command.path.joined(separator: " ")] + (command.arguments.isEmpty ? [] : [command.arguments])
            + command.options.map(\.synopsis)).joined(separator: " ")
    }

    /// Two aligned columns, the second on its own line when the first is long.
    private func table(_ rows: [(String, String)]) -> [String] {
        let width = min(rows.map(\.0.count).max() ?? 0, 34)
        return rows.flatMap { left, right -> [String] in
            left.count > width
                ? ["  \(left)", "  \(String(repeating: " ", count: width))  \(right)"]
                : ["  \(left)\(String(repeating: " ", count: width - left.count))  \(right)"]
        }
    }

    /// Text as lines of at most `width` characters, broken between words.
    private func wrapped(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    private func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)" }.joined(separator: "\n")
    }

    private func sentence(_ summary: String) -> String {
        guard let first = summary.first else { return summary }
        return first.uppercased() + summary.dropFirst() + "."
    }
}
