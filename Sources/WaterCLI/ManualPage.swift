/// The manual page (`man 1 water-client`, `man 8 water-server`) in roff, made from the same
/// ``ProgramSpec`` as `--help`.
extension ProgramSpec {
    public var manualPage: String {
        var lines = [
            ".TH \(roff(name.uppercased())) \(manualSection) \"\" \"\(roff(name)) \(roff(version))\" \"Water\"",
            ".SH NAME", "\(roff(name)) \\- \(roff(summary))",
            ".SH SYNOPSIS",
            ".B \(roff(name))",
        ]
        lines += globalOptions.map { "[\(optionRoff($0))]" }
        lines += ["\\fICOMMAND\\fR [\\fIoptions\\fR]", ".SH DESCRIPTION"]
        lines += paragraphs(description)
        lines.append(".SH COMMANDS")
        for command in commands {
            lines += [
                ".TP",
                "\\fB\(roff(name)) \(roff(command.path.joined(separator: " ")))\\fR"
                    + (command.arguments.isEmpty ? "" : " \\fI\(roff(command.arguments))\\fR"),
            ]
            lines += paragraphs(command.details.isEmpty ? command.summary : command.details)
            if !command.options.isEmpty {
                lines.append(".RS")
                for option in command.options {
                    lines += [".TP", optionRoff(option), roff(option.summary)]
                }
                lines.append(".RE")
            }
        }
        lines.append(".SH OPTIONS")
        for option in globalOptions + [
            OptionSpec("help", nil, "Show the help of the program or of a command (also -h)."),
            OptionSpec("version", nil, "Show the version."),
        ] {
            lines += [".TP", optionRoff(option), roff(option.summary)]
        }
        for section in sections {
            lines.append(".SH \(roff(section.title.uppercased()))")
            lines += paragraphs(section.text)
        }
        lines.append(".SH EXAMPLES")
        for command in commands {
            for example in command.examples {
                lines += [".PP", ".nf", "\(roff(name)) \(roff(example))", ".fi"]
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func optionRoff(_ option: OptionSpec) -> String {
        "\\fB\\-\\-\(roff(option.name))\\fR" + (option.value.map { " \\fI\(roff($0))\\fR" } ?? "")
    }

    /// Text as roff paragraphs: a blank line starts a new one, lines indented by two spaces are
    /// kept as they are (lists, examples).
    private func paragraphs(_ text: String) -> [String] {
        var lines: [String] = []
        var literal = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let isLiteral = line.hasPrefix("  ")
            if isLiteral != literal {
                lines.append(isLiteral ? ".nf" : ".fi")
                literal = isLiteral
            }
            lines.append(line.isEmpty ? ".PP" : roff(String(line)))
        }
        if literal { lines.append(".fi") }
        return lines
    }

    /// Escapes what roff would read as markup: backslashes, hyphens (as \-, so they copy as
    /// ASCII) and a dot or quote at the start of a line.
    private func roff(_ text: String) -> String {
        var escaped = ""
        for scalar in text.replacing("\\", with: "\\e").replacing("-", with: "\\-").unicodeScalars {
            // groff reads ASCII: anything else by its code point, \[u1F4A7].
            if scalar.isASCII {
                escaped.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\[u\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)]"
            }
        }
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
