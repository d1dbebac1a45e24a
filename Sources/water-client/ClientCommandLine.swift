import WaterCLI
import WaterCore
import WaterProtocol

/// A command of `water-client`: its spec, and its run on this run's ``Invocation``.
protocol ClientCommand: WaterCommand where Context == Invocation {}

/// Every command of `water-client`, in the order `--help` lists them: its `--help`, `help CMD`,
/// suggestions, completions, manual page and dispatch are made from this, and every command line
/// is checked against it first.
let clientCommands = CommandTable<Invocation>(
    name: "water-client", manualSection: 1, version: WireProtocol.softwareVersion,
    summary: "the household water tracker's command line",
    description: """
        Log what you drink, see today and the week, keep the household's todo list and your habits, \
        and show the household's weekly ranking. The server is --server, else $WATER_SERVER, else \
        the one you logged in to last, else 127.0.0.1:\(WireProtocol.defaultPort); each server has its \
        own login, and a session is only ever sent to the server that made it. Connections use TLS 1.3; \
        the first login pins the server's certificate (see login --help).
        """,
    globalOptions: [
        OptionSpec("server", "HOST:PORT", "the server to talk to"),
        OptionSpec("json", nil, "print replies and errors as JSON, with the proto's field and enum names"),
        OptionSpec("plaintext", nil, "no TLS (also WATER_PLAINTEXT=1): insecure, only for a server on this machine"),
    ],
    commands: [
        SessionCommands.Login.self, SessionCommands.Logout.self, SessionCommands.WhoAmI.self,
        SessionCommands.Passwd.self,
        WaterCommands.Log.self, WaterCommands.Undo.self, WaterCommands.Edit.self, WaterCommands.Remove.self,
        WaterCommands.Today.self, WaterCommands.Week.self, WaterCommands.History.self, WaterCommands.Goal.self,
        ExcuseCommands.Excuse.self, ExcuseCommands.Unexcuse.self,
        CupCommand.self, CupCommand.Add.self, CupCommand.List.self, CupCommand.Remove.self,
        WaterCommands.Zone.self, BoardCommand.self, YearCommand.self, PrivacyCommand.self,
        TodoCommand.Add.self, TodoCommand.List.self, TodoCommand.Done.self, TodoCommand.Undone.self,
        TodoCommand.Mine.self, TodoCommand.Skip.self, TodoCommand.History.self, TodoCommand.Remove.self,
        TodoCommand.Move.self, TodoCommand.Export.self, TodoCommand.Import.self,
        HabitCommand.Add.self, HabitCommand.List.self, HabitCommand.Check.self, HabitCommand.Uncheck.self,
        HabitCommand.Remove.self,
        // After habit's: the completions know an option's values by its name alone, and habit's
        // --icon has choices where a drink's is free text.
        DrinkCommands.List.self, DrinkCommands.Add.self, DrinkCommands.Change.self, DrinkCommands.Remove.self,
        MemberCommands.Add.self, MemberCommands.Guardian.self, MemberCommands.Admin.self, MemberCommands.Rename.self,
        MemberCommands.Reset.self, MemberCommands.Remove.self, MemberCommands.Restore.self, MemberCommands.List.self,
        TransferCommands.Export.self, TransferCommands.Import.self,
        OutboxCommands.Sync.self, OutboxCommands.List.self, OutboxCommands.Retry.self, OutboxCommands.Drop.self,
        PromptCommand.self, NudgeCommand.self, NudgeCommand.On.self, NudgeCommand.Off.self, RemindCommand.self,
        HelpCommand.self, CompletionCommand.self, ManualPageCommand.self,
    ],
    sections: [
        (
            "When",
            """
            WHEN is 21:30, "yesterday 21:30", "2026-11-30 21:30" or ISO 8601, in your time zone.
            """
        ),
        (
            "Exit status",
            """
            0 ok, 1 failed, 64 usage, 65 bad data, 69 server unavailable, 77 not allowed.
            """
        ),
        (
            "Environment",
            """
            WATER_SERVER: the server, HOST:PORT. WATER_PLAINTEXT=1: no TLS. NO_COLOR: no colours.
            XDG_CONFIG_HOME: where the session is kept (default ~/.config).
            XDG_STATE_HOME: where the outbox and what prompt shows are kept (default ~/.local/state).
            """
        ),
    ])

// Options and names that several commands' specs share.
let habitIconNames = HabitIcon.allCases.map(\.description)
let habitColorNames = HabitColor.allCases.map(\.description)
let weekOption = OptionSpec("week", "last|YYYY-Www", "last week, or a week like 2026-W49 (default: this week)")
let dayOption = OptionSpec("day", "DAY", "today (default), yesterday or YYYY-MM-DD")
let forOption = OptionSpec("for", "MEMBER", "act for MEMBER: a child you are a guardian of (admins: anyone)")
let passwordFromStandardInput = OptionSpec("password-stdin", nil, "read the password from standard input")
