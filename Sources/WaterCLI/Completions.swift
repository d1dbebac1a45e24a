/// Shell completions for bash, zsh and fish, made from the same ``ProgramSpec`` as `--help`.
///
/// Each works out the command typed so far from the words that are not options (skipping the
/// value of an option that takes one), then offers that command's subcommands or options, or an
/// option's fixed values or paths.
extension ProgramSpec {
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    public func completion(for shell: Shell) -> String {
        switch shell {
        case .bash: bashCompletion
        case .zsh: zshCompletion
        case .fish: fishCompletion
        }
    }

    /// What can follow a command path: its subcommands, or its options and the global ones.
    private func offers(_ path: [String]) -> [String] {
        if path.isEmpty { return topWords + globalOptions.map { "--\($0.name)" } + ["--help", "--version"] }
        let subcommands = path.count == 1 ? subcommands(of: path[0]) : []
        if !subcommands.isEmpty { return subcommands.map { $0.path[1] } }
        guard let command = command(path) else { return [] }
        return command.argumentChoices + (command.options + globalOptions).map { "--\($0.name)" } + ["--help"]
    }

    /// Every path there is something to offer after, longest first (a shell `case` takes the
    /// first pattern that matches).
    private var completionPaths: [[String]] {
        let groups = topWords.filter { !subcommands(of: $0).isEmpty }.map { [$0] }
        return commands.map(\.path).sorted { $0.count > $1.count } + groups.filter { command($0) == nil }
    }

    private var functionName: String { "_" + name.replacing("-", with: "_") }

    /// Shell lines, the same in bash and zsh, that set `typed` to the command typed so far: the
    /// words before the cursor that are not options, skipping the value of an option that takes
    /// one. (`path` would be zsh's $PATH.)
    private func typedCommandLoop(words: String, from first: Int, before end: String) -> [String] {
        [
            "    local typed=\"\" word skip=0 i",
            "    for ((i = \(first); i < \(end); i++)); do",
            "        word=${\(words)[i]}",
            "        if ((skip)); then skip=0; continue; fi",
            "        case $word in",
            "        \(optionsTakingValues.map { "--\($0.name)" }.joined(separator: "|"))) skip=1 ;;",
            "        -*) ;;",
            "        *) typed=\"${typed:+$typed }$word\" ;;",
            "        esac",
            "    done",
        ]
    }

    /// The two `case` statements of bash and zsh, up to the second's `esac`: what follows an
    /// option that takes a value (`action`, then return), and else `offers` for the command typed
    /// so far (`offered`: the variable's value). zsh writes a pattern with an opening parenthesis.
    private func cases(
        pattern: (String) -> String, offersVariable: String, action: (OptionSpec) -> String,
        offered: ([String]) -> String
    ) -> [String] {
        var lines = ["    case $prev in"]
        for option in optionsTakingValues {
            lines.append("    \(pattern("--\(option.name)"))) \(action(option)); return ;;")
        }
        lines += ["    esac", "    \(offersVariable)", "    case $typed in"]
        for path in completionPaths {
            let joined = path.joined(separator: " ")
            lines.append("    \(pattern("\"\(joined)\"|\"\(joined) \"*"))) offers=\(offered(path)) ;;")
        }
        lines.append("    \(pattern("\"\""))) offers=\(offered([])) ;;")
        return lines
    }

    private var bashCompletion: String {
        var lines = [
            "# bash completion for \(name), made by `\(name) completion bash`",
            "\(functionName)() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
        ]
        lines += typedCommandLoop(words: "COMP_WORDS", from: 1, before: "COMP_CWORD")
        lines += cases(pattern: { $0 }, offersVariable: "local offers") { option in
            !option.choices.isEmpty
                ? "COMPREPLY=($(compgen -W \"\(option.choices.joined(separator: " "))\" -- \"$cur\"))"
                : option.value == "DIR"
                    ? "COMPREPLY=($(compgen -d -- \"$cur\"))"
                    : option.takesPath ? "COMPREPLY=($(compgen -f -- \"$cur\"))" : "COMPREPLY=()"
        } offered: {
            "\"\(offers($0).joined(separator: " "))\""
        }
        lines += [
            "    *) offers=\"\" ;;",
            "    esac",
            "    COMPREPLY=($(compgen -W \"$offers\" -- \"$cur\"))",
            "}",
            "complete -F \(functionName) \(name)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    private var zshCompletion: String {
        var lines = [
            "#compdef \(name)",
            "# zsh completion for \(name), made by `\(name) completion zsh`",
            "\(functionName)() {",
            "    local prev=${words[CURRENT-1]}",
        ]
        lines += typedCommandLoop(words: "words", from: 2, before: "CURRENT")
        lines += cases(pattern: { "(\($0)" }, offersVariable: "local -a offers") { option in
            !option.choices.isEmpty
                ? "compadd -- \(option.choices.joined(separator: " "))"
                : option.value == "DIR" ? "_directories" : option.takesPath ? "_files" : "_message '\(option.value!)'"
        } offered: {
            "(\(zshDescribed($0)))"
        }
        lines += [
            "    esac",
            "    _describe -t commands '\(name)' offers",
            "}",
            "\(functionName) \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `'word:what it does'` pairs for zsh's `_describe`.
    private func zshDescribed(_ path: [String]) -> String {
        offers(path).map { word in
            "'\(word.replacing(":", with: "\\:")):\(description(of: word, after: path).replacing("'", with: "'\\''"))'"
        }.joined(separator: " ")
    }

    private var fishCompletion: String {
        var lines = [
            "# fish completion for \(name), made by `\(name) completion fish`",
            "complete -c \(name) -f",
        ]
        for option in globalOptions {
            lines.append("complete -c \(name) -l \(option.name)\(fishValue(option)) -d '\(fishQuoted(option.summary))'")
        }
        lines.append("complete -c \(name) -l help -d 'show help'")
        lines.append("complete -c \(name) -n __fish_use_subcommand -l version -d 'show the version'")
        for word in topWords {
            lines.append(
                "complete -c \(name) -n __fish_use_subcommand -a \(word) -d '\(fishQuoted(description(of: word, after: [])))'"
            )
        }
        for word in topWords {
            let subcommands = subcommands(of: word)
            let names = subcommands.map { $0.path[1] }.joined(separator: " ")
            for subcommand in subcommands {
                lines.append(
                    "complete -c \(name) -n '__fish_seen_subcommand_from \(word); and not __fish_seen_subcommand_from \(names)' "
                        + "-a \(subcommand.path[1]) -d '\(fishQuoted(subcommand.summary))'")
            }
        }
        for command in commands {
            let condition = command.path.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            if !command.argumentChoices.isEmpty {
                lines.append(
                    "complete -c \(name) -n '\(condition)' -a '\(command.argumentChoices.joined(separator: " "))'")
            }
            for option in command.options {
                lines.append(
                    "complete -c \(name) -n '\(condition)' -l \(option.name)\(fishValue(option)) "
                        + "-d '\(fishQuoted(option.summary))'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func fishValue(_ option: OptionSpec) -> String {
        guard option.value != nil else { return "" }
        if !option.choices.isEmpty { return " -x -a '\(option.choices.joined(separator: " "))'" }
        return option.takesPath ? " -r -F" : " -x"
    }

    private func fishQuoted(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("'", with: "\\'")
    }

    /// What a word offered after `path` does, for the shells that show it.
    private func description(of word: String, after path: [String]) -> String {
        if word.hasPrefix("--") {
            let name = String(word.dropFirst(2))
            let options = (command(path)?.options ?? []) + globalOptions
            return options.first { $0.name == name }?.summary ?? (name == "help" ? "show help" : "show the version")
        }
        if let command = command(path + [word]) { return command.summary }
        let subcommands = subcommands(of: word)
        if path.isEmpty, !subcommands.isEmpty { return subcommands.map { $0.path[1] }.joined(separator: ", ") }
        return word
    }
}
