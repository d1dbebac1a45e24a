import WaterCLI
import WaterProtocol

/// Everything `water-server` accepts: its `--help`, `help CMD`, suggestions, completions and
/// manual page are made from this, and every command line is checked against it first.
let serverCommandLine = ProgramSpec(
    name: "water-server", manualSection: 8, version: WireProtocol.softwareVersion,
    summary: "the household water tracker's server",
    description: """
        Serves the household's water tracker (protocol version \(WireProtocol.version)) over TLS 1.3 on \
        port \(WireProtocol.defaultPort), keeping one archive per member in a data directory, and \
        looks after that directory: checks, repairs, backups and restores.
        """,
    globalOptions: [],
    commands: [
        CommandSpec(
            "serve", summary: "serve the household (default 127.0.0.1:\(WireProtocol.defaultPort))",
            details: """
                Serves the household from DIR until SIGTERM or SIGINT, which let calls in flight finish.
                The certificate is the self-signed pair init made in DIR/tls, or --tls-cert and --tls-key.
                With --mqtt, each member's figures and the board appear in Home Assistant (MQTT discovery).
                """,
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("listen", "HOST:PORT", "where to listen (default 127.0.0.1:\(WireProtocol.defaultPort))"),
                OptionSpec("time-zone", "ZONE", "the household's IANA time zone (default: $TZ, /etc/timezone, or UTC)"),
                OptionSpec("tls-cert", "FILE", "a certificate (with its chain) in PEM, from a CA"),
                OptionSpec("tls-key", "FILE", "its key in PEM"),
                OptionSpec("plaintext", nil, "no TLS: insecure, refused unless --listen is a loopback address"),
                OptionSpec("max-connections", "N", "connections served at once (default 256)"),
                OptionSpec(
                    "max-per-address", "N",
                    "connections served at once from one address (default an eighth of --max-connections: 32)"),
                OptionSpec(
                    "max-unauthenticated", "N",
                    "connections not logged in, from everyone; past it one is closed for each new one "
                        + "(default three quarters of --max-connections: 192)"),
                OptionSpec(
                    "max-handshakes", "N",
                    "connections in their TLS or protocol handshake, from everyone; likewise "
                        + "(default half of --max-unauthenticated: 96)"),
                OptionSpec("handshake-deadline", "SECONDS", "time from connecting to the handshake (default 10)"),
                OptionSpec("max-calls", "N", "calls in flight per connection (default 32)"),
                OptionSpec("max-frame", "BYTES", "largest frame payload (default 1048576)"),
                OptionSpec("frame-deadline", "SECONDS", "time to deliver a started frame (default 10)"),
                OptionSpec("idle-timeout", "SECONDS", "close connections silent this long (default 300)"),
                OptionSpec(
                    "idle-sweep", "SECONDS",
                    "every SECONDS, drop from memory members' archives unused since the last time (default 300)"),
                passwordStrength,
                OptionSpec(
                    "clock", "UNIX_MS",
                    "start the server's clock at this time (tests and demonstrations; the build-time check is off)"),
                OptionSpec(
                    "mqtt", "HOST:PORT",
                    "publish the board to this MQTT broker for Home Assistant (default $WATER_MQTT; port 1883, 8883 with TLS)"
                ),
                OptionSpec("mqtt-user", "NAME", "the username to log in to the broker with"),
                OptionSpec(
                    "mqtt-password-file", "FILE", "the broker password: the first line of FILE (with --mqtt-user)"),
                OptionSpec("mqtt-tls", nil, "TLS to the broker, checked against the system's CAs or --mqtt-ca"),
                OptionSpec("mqtt-ca", "FILE", "the CA (PEM) that signed the broker's certificate (with --mqtt-tls)"),
                OptionSpec("mqtt-prefix", "PREFIX", "the first level of every topic and sensor id (default water)"),
            ],
            examples: [
                "serve --data /var/lib/water --listen 0.0.0.0:7420 --time-zone Europe/Berlin",
                "serve --data /var/lib/water --mqtt 127.0.0.1:1883 --mqtt-user water --mqtt-password-file /etc/water/mqtt-password",
            ]),
        CommandSpec(
            "init", summary: "create the data directory and its first admin",
            details: """
                Creates the data directory, its TLS certificate and its first admin, whose days follow
                --time-zone (default: this machine's zone; water-client zone changes it later). The
                password is asked for twice, or read from the first line of standard input.
                """,
            options: [
                OptionSpec("data", "DIR", "the data directory to create", required: true),
                OptionSpec("admin", "NAME", "the first admin's username", required: true),
                OptionSpec("time-zone", "ZONE", "the admin's time zone (default: this machine's)"),
                OptionSpec("password-stdin", nil, "read the password from standard input"),
                passwordStrength,
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: ["init --data /var/lib/water --admin mum --time-zone Europe/Berlin"]),
        CommandSpec(
            "check", summary: "verify every archive, reading only (also while serving)",
            details: "Verifies every archive, reading only (also while serving); exits 1 when any is damaged.",
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("json", nil, "one JSON object: each archive's state"),
            ],
            examples: ["check --data /var/lib/water", "check --data /var/lib/water --json"]),
        CommandSpec(
            "repair", "[NAME]", summary: "rebuild damaged archives from what still verifies (server stopped)",
            details: """
                Rebuilds a member's damaged archive (or --accounts, --household, --all) from what still
                verifies; the originals are kept beside them. The server must be stopped.
                """,
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("accounts", nil, "the accounts archive"),
                OptionSpec("household", nil, "the household's archive (the todo list)"),
                OptionSpec("all", nil, "every damaged archive"),
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: ["repair --all --data /var/lib/water", "repair ben --data /var/lib/water"]),
        CommandSpec(
            "passwd", "NAME", summary: "set a member's password (server stopped)",
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("password-stdin", nil, "read the password from standard input"),
                passwordStrength,
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: ["passwd ben --data /var/lib/water"]),
        CommandSpec(
            "status", summary: "uptime, connections, members, archive sizes, compactions, certificate",
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: ["status --data /var/lib/water", "status --data /var/lib/water --json"]),
        CommandSpec(
            "backup", summary: "copy the data, also while the server runs",
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("to", "DIR", "where the copy goes", required: true),
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: ["backup --data /var/lib/water --to /mnt/usb/water-2026-11-30"]),
        CommandSpec(
            "restore", summary: "put a backup back (server stopped), or one member's archive",
            details: """
                Puts a backup back into DIR (the server stopped; --force replaces data that is there, kept
                aside), or with --member only that member's archive (the one it replaces is kept). A whole
                restore ends every session the backup holds, so none revoked since it was taken comes back:
                members log in again (--keep-sessions keeps them).
                """,
            options: [
                OptionSpec("data", "DIR", "the data directory", required: true),
                OptionSpec("from", "DIR", "the backup", required: true),
                OptionSpec("force", nil, "replace the data that is there (it is kept aside)"),
                OptionSpec("member", "NAME", "restore only this member's archive"),
                OptionSpec("keep-sessions", nil, "keep the backup's sessions (by default every member logs in again)"),
                OptionSpec("json", nil, "one JSON object"),
            ],
            examples: [
                "restore --from /mnt/usb/water-2026-11-30 --data /var/lib/water",
                "restore --from /mnt/usb/water-2026-11-30 --data /var/lib/water --member ben",
            ]),
        CommandSpec("help", "[COMMAND]", summary: "show the help of a command", examples: ["help repair"]),
        CommandSpec(
            "completion", "SHELL", summary: "print the completion script for bash, zsh or fish",
            examples: ["completion fish > ~/.config/fish/completions/water-server.fish"],
            argumentChoices: ProgramSpec.Shell.allCases.map(\.rawValue)),
        CommandSpec(
            "manpage", summary: "print this manual page in roff (man 8 water-server)",
            examples: ["manpage | man -l -"]),
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

private let passwordStrength = OptionSpec(
    "password-strength", "STRENGTH", "argon2id cost: interactive (default) or minimum",
    choices: ["interactive", "minimum"])
