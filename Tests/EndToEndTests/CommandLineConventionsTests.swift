import Foundation
import Glibc
import Testing
import WaterProtocol
import WaterSync
import WaterTransport

/// What a user of git, gh or systemctl expects of both programs (issue 11, points 15 to 19),
/// through the real binaries.
@Suite("Command line conventions, end to end")
struct CommandLineConventionsTests {
    /// Every command and subcommand, as a stranger would list them from the README.
    static let clientCommands = [
        "login", "logout", "whoami", "passwd", "log", "undo", "edit", "rm", "today", "week", "history", "goal", "cup",
        "zone", "board", "todo add", "todo ls", "todo done", "todo undone", "todo mine", "todo skip", "todo history",
        "todo rm", "todo mv", "todo export", "todo import", "habit add",
        "habit ls", "habit check", "habit uncheck", "habit rm", "member add", "member rename", "member reset",
        "member rm", "member restore", "member guardian", "member admin", "member ls", "export", "import", "sync",
        "outbox", "outbox retry", "outbox drop",
        "prompt",
        "nudge", "nudge on", "nudge off", "help", "completion", "manpage",
    ]
    static let serverCommands = [
        "serve", "init", "check", "repair", "passwd", "status", "backup", "restore", "help", "completion", "manpage",
    ]

    @Test(
        "-h, --help and help CMD show each command's own usage and an example, in both programs",
        arguments: [("water-client", clientCommands), ("water-server", serverCommands)])
    func helpOnEveryCommand(program: String, commands: [String]) throws {
        for command in commands {
            let words = command.split(separator: " ").map(String.init)
            let long = try run(program, words + ["--help"])
            #expect(long.status == 0, "\(program) \(command) --help: \(long.error)")
            #expect(long.output.hasPrefix("usage: \(program) \(command)"), "\(program) \(command): \(long.output)")
            #expect(long.output.contains("example"), "\(program) \(command) --help has an example")
            #expect(try run(program, words + ["-h"]).output == long.output, "\(program) \(command) -h")
            #expect(try run(program, ["help"] + words).output == long.output, "\(program) help \(command)")
        }
        // A group lists its subcommands; the overview lists every command.
        let overview = try run(program, ["--help"]).output
        for command in commands { #expect(overview.contains("  \(command)"), "\(program) --help lists \(command)") }
    }

    @Test("log -h is help, not an amount; --version names the release in both programs")
    func helpAndVersion() throws {
        let help = try run("water-client", ["log", "-h"])
        #expect(help.status == 0 && help.output.hasPrefix("usage: water-client log [AMOUNT] [DRINK]"), "\(help.error)")
        for program in ["water-client", "water-server"] {
            let version = try run(program, ["--version"])
            #expect(version.status == 0)
            #expect(version.output == "\(program) \(WireProtocol.softwareVersion) (protocol version 1)\n")
        }
        let group = try run("water-client", ["todo", "--help"])
        #expect(group.status == 0 && group.output.contains("todo mv ID POSITION"), "\(group.output)")
    }

    @Test("the handshake names the client and its version")
    func handshakeClientName() throws {
        let seen = Locked<String?>(nil)
        try withFakeServer({ fd in
            // Read the first frame: the handshake's envelope.
            var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { return }
                decoder.append(buffer[..<count])
                guard let frame = try? decoder.nextFrame() else { continue }
                let envelope = try? WaterV1.RequestEnvelope(serializedBytes: frame.payload)
                let hello = envelope.flatMap { try? WaterV1.HandshakeRequest(serializedBytes: $0.payload) }
                seen.withLock { $0 = hello?.clientName }
                return
            }
        }) { port in
            let result = try run(
                "water-client", ["--plaintext", "login", "mum", "--password-stdin"], input: "x\n",
                environment: ["WATER_SERVER": "127.0.0.1:\(port)", "XDG_CONFIG_HOME": "/tmp/hello-\(UUID())"])
            #expect(result.status != 0)
        }
        #expect(seen.withLock { $0 } == "water-client \(WireProtocol.softwareVersion)")
    }

    @Test("did you mean: a mistyped command, subcommand or option is refused (64) with the likely one")
    func didYouMean() throws {
        for (program, words, expected) in [
            ("water-client", ["lgo", "250"], "unknown command \"lgo\" (did you mean \"log\"?)"),
            ("water-client", ["hist"], "unknown command \"hist\" (did you mean \"history\"?)"),
            ("water-client", ["todo", "dnoe", "1"], "unknown todo command \"dnoe\" (did you mean \"done\"?)"),
            ("water-client", ["outbox", "retyr", "1"], "unknown outbox command \"retyr\" (did you mean \"retry\"?)"),
            ("water-client", ["log", "--amount", "250"], "unknown option --amount for log"),
            ("water-client", ["board", "--expalin"], "unknown option --expalin for board (did you mean --explain?)"),
            ("water-client", ["--jsno", "today"], "unknown option --jsno for today (did you mean --json?)"),
            ("water-server", ["stauts", "--data", "/tmp/x"], "unknown command \"stauts\" (did you mean \"status\"?)"),
            ("water-server", ["serve", "--dta", "/tmp/x"], "unknown option --dta for serve (did you mean --data?)"),
        ] {
            let result = try run(program, words)
            #expect(result.status == 64, "\(words): \(result.error)")
            #expect(result.error.contains(expected), "\(words): \(result.error)")
        }
    }

    @Test("server messages are sentences; the field is only in the violations of --json errors")
    func messagesAndJSONErrors() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["habit", "add", "Read"]).status == 0)
        let twice = try mum.run(["habit", "add", "Read"])
        #expect(twice.status == 65)
        #expect(twice.error == "water-client: you already have a habit called \"Read\"\n", "\(twice.error)")
        let goal = try mum.run(["goal", "100"])
        #expect(goal.error == "water-client: a daily goal must be between 500 and 10000 ml, got 100\n")
        let nobody = try mum.run(["member", "reset", "nobody", "--password-stdin"], input: "long-enough-1\n")
        #expect(nobody.error == "water-client: there is no member called nobody\n", "\(nobody.error)")

        // With --json: one object on standard error, nothing on standard output.
        let json = try mum.run(["--json", "goal", "100"])
        #expect(json.status == 65 && json.output.isEmpty)
        let error = try JSONDecoder().decode(ErrorObject.self, from: Data(json.error.utf8))
        #expect(error.code == "INVALID_ARGUMENT" && error.exit_code == 65)
        #expect(error.message == "a daily goal must be between 500 and 10000 ml, got 100")
        #expect(error.violations.map(\.field) == ["daily_goal_ml"])
        let usage = try JSONDecoder().decode(
            ErrorObject.self, from: Data(try mum.run(["--json", "log", "--att", "1"]).error.utf8))
        #expect(usage.code == "USAGE" && usage.exit_code == 64)

        // Enums by their proto names; no escaped slashes (a time zone has one).
        #expect(try mum.run(["habit", "add", "Run", "--icon", "sportscourt"]).status == 0)
        let habits = try mum.run(["--json", "habit", "ls"]).output
        #expect(habits.contains("\"HABIT_ICON_SPORTSCOURT\"") && habits.contains("\"HABIT_COLOR_BLUE\""), "\(habits)")
        #expect(try mum.run(["zone", "Europe/Berlin"]).status == 0)
        let whoami = try mum.run(["--json", "whoami"]).output
        #expect(whoami.contains("\"Europe/Berlin\"") && whoami.contains("\"ROLE_ADMIN\""), "\(whoami)")
        // What --json prints still decodes as the message (names read back as values).
        #expect(try mum.json(WaterV1.WhoAmIResponse.self, ["whoami"]).member?.role == .admin)

        // water-server status and check speak JSON too, also for their errors.
        let status = try run("water-server", ["status", "--data", server.dataDirectory, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        #expect(report?["running"] as? Bool == true && report?["members"] as? Int == 1, "\(status.output)")
        let check = try run("water-server", ["check", "--data", server.dataDirectory, "--json"])
        let checked = try JSONSerialization.jsonObject(with: Data(check.output.utf8)) as? [String: Any]
        #expect(check.status == 0 && checked?["healthy"] as? Bool == true, "\(check.output)")
        #expect((checked?["archives"] as? [Any])?.count == 3)
        let missing = try run("water-server", ["status", "--data", "/nonexistent/water", "--json"])
        #expect(missing.status == 1 && missing.output.isEmpty)
        #expect(try JSONDecoder().decode(ErrorObject.self, from: Data(missing.error.utf8)).code == "FAILURE")
        #expect(server.stop() == 0)
    }

    struct ErrorObject: Decodable {
        struct Violation: Decodable { var field: String }
        var code: String
        var exit_code: Int32
        var message: String
        var violations: [Violation]
    }

    @Test("bash, zsh and fish completions come from the same table as --help, and complete")
    func completions() throws {
        let directory = NSTemporaryDirectory() + "completions-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for program in ["water-client", "water-server"] {
            for shell in ["bash", "zsh", "fish"] {
                let script = try run(program, ["completion", shell])
                #expect(script.status == 0 && !script.output.isEmpty)
                try script.output.write(toFile: "\(directory)/\(program).\(shell)", atomically: true, encoding: .utf8)
            }
        }
        // bash: the function answers as it would at a prompt.
        let bash = shell(
            """
            bash -c 'source \(directory)/water-client.bash
            t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _water_client; echo "${COMPREPLY[*]}"; }
            t water-client to; t water-client todo ""; t water-client board --by ""; t water-client log --a
            t water-client --server h:1 habit add Read --icon b
            source \(directory)/water-server.bash
            COMP_WORDS=(water-server status --); COMP_CWORD=2; _water_server; echo "${COMPREPLY[*]}"'
            """)
        #expect(
            bash.output
                == "today todo\nadd ls done undone mine skip history rm mv export import\nprogress total chores\n--at\nbook\n--data --json --help\n",
            "\(bash.output)")
        // fish: its own completion engine, asked as at a prompt.
        let fish = shell(
            "fish --no-config -c 'source \(directory)/water-client.fish; complete -C \"water-client todo \"; "
                + "complete -C \"water-client export --format \"'")
        let fishWords = fish.output.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(
            fishWords == [
                "add", "done", "export", "history", "import", "ls", "mine", "mv", "rm", "skip", "undone", "csv", "json",
            ],
            "\(fish.output)")
        // zsh: what the function offers, with _describe and compadd (compinit's) standing in to
        // print their words.
        let zsh = shell(
            """
            zsh -c '_describe() { local a=$4; print -l -- ${(P)a} }; compadd() { shift; print -l -- "$@" }
            words=(water-client todo ""); CURRENT=3; source \(directory)/water-client.zsh
            words=(water-client board --by ""); CURRENT=4; source \(directory)/water-client.zsh'
            """)
        #expect(
            zsh.output.split(separator: "\n").map { $0.split(separator: ":")[0] }
                == [
                    "add", "ls", "done", "undone", "mine", "skip", "history", "rm", "mv", "export", "import",
                    "progress", "total", "chores",
                ],
            "\(zsh.output)")
        // zsh: the script parses, and defines the function compinit would call.
        for program in ["water-client", "water-server"] {
            let zsh = shell("zsh -n \(directory)/\(program).zsh && head -1 \(directory)/\(program).zsh")
            #expect(zsh.status == 0 && zsh.output == "#compdef \(program)\n", "\(zsh.output)")
        }
    }

    @Test("the manual pages render without a warning and describe every command")
    func manualPages() throws {
        for (program, section, commands) in [
            ("water-client", "1", Self.clientCommands), ("water-server", "8", Self.serverCommands),
        ] {
            let page = try run(program, ["manpage"])
            #expect(
                page.status == 0
                    && page.output.hasPrefix(".TH \(program.uppercased().replacing("-", with: "\\-")) \(section)"))
            let path = NSTemporaryDirectory() + "\(program)-\(UUID()).\(section)"
            try page.output.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let rendered = shell("groff -man -Tutf8 -ww -P -c -P -b -P -u \(path) 2>&1")
            #expect(rendered.status == 0 && !rendered.output.contains("warning"), "\(rendered.output)")
            for command in commands {
                #expect(
                    rendered.output.contains("\(program) \(command)"), "\(program)(\(section)) describes \(command)")
            }
            #expect(rendered.output.contains("EXIT STATUS"))
        }
    }

    @Test("the README's command tables are the programs' own --help, row for row")
    func readmeTables() throws {
        let readme = try String(contentsOfFile: "\(repositoryRoot)/README.md", encoding: .utf8)
        for program in ["water-client", "water-server"] {
            // The overview's command list: "  SYNOPSIS  SUMMARY", or SUMMARY alone on the next
            // line, indented, when the synopsis is long.
            let lines = try run(program, ["--help"]).output.split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(lines.firstIndex(of: "commands:")) + 1
            var rows: [(String, String)] = []
            for line in lines[start...].prefix(while: { !$0.isEmpty }) {
                if line.hasPrefix("      ") {
                    rows[rows.count - 1].1 = line.trimmingCharacters(in: .whitespaces)
                } else {
                    let parts = line.dropFirst(2).split(separator: "  ", maxSplits: 1)
                    rows.append(
                        (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""))
                }
            }
            let table =
                (["| \(program) | what it does |", "|---|---|"]
                + rows.map { "| `\($0.0.replacing("|", with: "\\|"))` | \($0.1.replacing("|", with: "\\|")) |" })
                .joined(separator: "\n")
            #expect(readme.contains(table + "\n\n"), "README.md should hold, as it is:\n\(table)")
        }
    }

    @Test("--json everywhere: every command of water-client prints one JSON value, with no escaped slash")
    func jsonEverywhere() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        let folder = URL(fileURLWithPath: server.dataDirectory).deletingLastPathComponent().path
        let login = try mum.run(["--json", "login", "mum", "--password-stdin"], input: adminPassword + "\n")
        #expect(login.status == 0 && (try? JSONSerialization.jsonObject(with: Data(login.output.utf8))) != nil)
        var commands: [([String], String?)] = [
            (["whoami"], nil), (["log", "250"], nil),
            (["log"], nil), (["undo"], nil), (["today"], nil), (["week", "--entries"], nil),
            (["history", "--days", "3"], nil), (["goal"], nil), (["goal", "2200"], nil), (["cup"], nil),
            (["cup", "300"], nil), (["zone"], nil), (["zone", "Europe/Berlin"], nil), (["board"], nil),
            (["board", "--explain", "--by", "total"], nil), (["todo", "add", "buy filters"], nil),
            (["todo", "ls"], nil),
            (["todo", "done", "1"], nil), (["todo", "undone", "1"], nil), (["todo", "add", "call grandma"], nil),
            (["todo", "mv", "2", "1"], nil), (["todo", "rm", "1"], nil), (["habit", "add", "Read"], nil),
            (["habit", "check", "Read"], nil), (["habit", "uncheck", "Read"], nil), (["habit", "ls"], nil),
            (["habit", "rm", "Read"], nil), (["member", "add", "ben", "--password-stdin"], "ben-password-1\n"),
            (["member", "rename", "ben", "--display-name", "Ben B."], nil),
            (["member", "reset", "ben", "--password-stdin"], "ben-password-2\n"), (["member", "ls"], nil),
            (["member", "rm", "ben", "--yes"], nil), (["export"], nil),
            (["export", "--household", "--output", "\(folder)/all.json"], nil),
        ]
        let first = try mum.json(WaterV1.LogWaterResponse.self, ["log", "100"]).entry!.entryID
        commands += [
            (["edit", first, "--amount", "150"], nil), (["rm", first], nil),
            (["passwd", "--password-stdin"], "\(adminPassword)\nmum-password-2\n"),
        ]
        for (arguments, input) in commands {
            let result = try mum.run(["--json"] + arguments, input: input)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            let parsed = try? JSONSerialization.jsonObject(with: Data(result.output.utf8))
            #expect(parsed != nil, "\(arguments) printed \(result.output.debugDescription)")
            #expect(!result.output.contains("\\/"), "\(arguments): \(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "\(arguments): one line")
        }
        let exported = try mum.run(["export", "--output", "\(folder)/mum.json"])
        let imported = try mum.run(["--json", "import", "\(folder)/mum.json"])
        #expect(
            try JSONSerialization.jsonObject(with: Data(imported.output.utf8)) is [String: Any], "\(exported.error)")
        let logout = try mum.run(["--json", "logout"])
        #expect(logout.status == 0 && (try? JSONSerialization.jsonObject(with: Data(logout.output.utf8))) != nil)
        #expect(server.stop() == 0)
    }

    @Test("--json on water-server's admin commands: init, passwd, backup, restore, repair, each one object")
    func serverJSON() throws {
        let root = NSTemporaryDirectory() + "server-json-\(UUID())"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let strength = ["--password-strength", "minimum"]
        for (arguments, input, key) in [
            (
                ["init", "--data", "\(root)/d", "--admin", "mum", "--password-stdin"] + strength, "mum-password-1\n",
                "certificate"
            ),
            (["passwd", "mum", "--data", "\(root)/d", "--password-stdin"] + strength, "mum-password-2\n", "username"),
            (["backup", "--data", "\(root)/d", "--to", "\(root)/b"], nil, "read_back"),
            (["restore", "--from", "\(root)/b", "--data", "\(root)/d", "--force"], nil, "kept_aside"),
            (["repair", "--all", "--data", "\(root)/d"], nil, "archives"),
        ] as [([String], String?, String)] {
            let result = try run("water-server", arguments + ["--json"], input: input)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            #expect(object?[key] != nil, "\(arguments) printed \(result.output.debugDescription)")
        }
    }
}
