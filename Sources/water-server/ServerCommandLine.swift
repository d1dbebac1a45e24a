import WaterCLI
import WaterProtocol

/// A command of `water-server`: its spec, and its run on the command line left once its words
/// are taken.
protocol ServerCommand: WaterCommand where Context == Arguments {}

/// Every command of `water-server`, in the order `--help` lists them: its `--help`, `help CMD`,
/// suggestions, completions, manual page and dispatch are made from this, and every command line
/// is checked against it first.
let serverCommands = CommandTable<Arguments>(
    name: "water-server", manualSection: 8, version: WireProtocol.softwareVersion,
    summary: "the household water tracker's server",
    description: """
        Serves the household's water tracker (protocol version \(WireProtocol.version)) over TLS 1.3 on \
        port \(WireProtocol.defaultPort), keeping one archive per member in a data directory, and \
        looks after that directory: checks, repairs, backups and restores.
        """,
    globalOptions: [],
    commands: [
        ServeCommand.self, InitCommand.self, CheckCommand.self, RepairCommand.self, PasswdCommand.self,
        StatusCommand.self, BackupCommand.self, RestoreCommand.self, HelpCommand.self, CompletionCommand.self,
        ManualPageCommand.self,
    ],
    sections: [
        (
            "Exit status",
            """
            0 ok, 1 failed (check: an archive is damaged), 64 usage, 65 bad data, 69 unavailable
            (the data directory is in use, the port is taken), 77 not allowed.
            """
        ),
        (
            "Files",
            """
            DIR/format: the format's version. DIR/log: the log every archive shares. DIR/accounts,
            DIR/household, DIR/users/ID: each archive's snapshot. DIR/tls: the certificate and key.
            DIR/status: what status reads. DIR/lock: held by the one process using DIR.
            """
        ),
    ])

/// `--data DIR` as the commands declare it (init's says it creates the directory);
/// ``requireData(_:)`` reads it.
let dataOption = OptionSpec("data", "DIR", "the data directory", required: true)

/// `--json` as the commands declare it (check's says what its object holds).
let jsonOption = OptionSpec("json", nil, "one JSON object")

/// `--password-stdin`, which init and passwd take (``NewPassword``).
let passwordFromStandardInput = OptionSpec("password-stdin", nil, "read the password from standard input")

/// How init and passwd are told where a new password comes from and how costly its hash is;
/// ``NewPassword`` reads them.
let newPasswordOptions = [passwordFromStandardInput, passwordStrength]

/// `--password-strength`, which serve, init and passwd take.
let passwordStrength = OptionSpec(
    "password-strength", "STRENGTH", "argon2id cost: interactive (default) or minimum",
    choices: ["interactive", "minimum"])
