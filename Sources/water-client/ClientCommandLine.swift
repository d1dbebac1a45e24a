import WaterCLI
import WaterCore
import WaterProtocol

/// Everything `water-client` accepts: its `--help`, `help CMD`, suggestions, completions and
/// manual page are made from this, and every command line is checked against it first.
let clientCommandLine = ProgramSpec(
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
        CommandSpec(
            "login", "[NAME]", summary: "log in (the session is kept in ~/.config/water, 0600)",
            details: """
                Logs in; the password is asked for without echo, or read from standard input.
                The first login to a server pins its certificate, as ssh does: it shows the fingerprint
                and asks, or --fingerprint pins the one `water-server status` shows on the server
                without asking. A server whose certificate the system's CAs vouch for needs no pin.
                A changed certificate is refused. Each server keeps its own session: logging in to
                another keeps this one, and commands without --server then go to the new one.
                """,
            options: [
                OptionSpec("password-stdin", nil, "read the password from the first line of standard input"),
                OptionSpec("fingerprint", "SHA256:...", "trust the server with this certificate without asking"),
            ],
            examples: ["login ann", "--server pi.local:7420 login ann --fingerprint SHA256:..."]),
        CommandSpec(
            "logout", summary: "end this session on the server and forget it here",
            options: [
                OptionSpec("local", nil, "only forget it here, without the server (it still works there)")
            ],
            examples: ["logout", "logout --local"]),
        CommandSpec(
            "whoami", summary: "show who you are logged in as, and what others see of you",
            examples: ["whoami"]),
        CommandSpec(
            "passwd", summary: "change your password (your other sessions end)",
            details: """
                Changes your password; your other sessions end. With --password-stdin: the current
                password, then the new one, one per line.
                """,
            options: [OptionSpec("password-stdin", nil, "read both passwords from standard input")],
            examples: ["passwd"]),
        CommandSpec(
            "log", "[AMOUNT] [DRINK]", summary: "log a drink (default: your usual cup of your usual drink, now)",
            details: """
                Logs AMOUNT of DRINK at WHEN (default: now). AMOUNT is whole millilitres (250 or
                250ml, 1-2000) or litres and centilitres as a bottle says them (0.5l, 33cl); without
                it, your usual cup. DRINK is one of the household's drinks (water-client drink ls) or
                one of your named cups (cup add; its amount, of its drink); without it, your usual
                drink (cup --drink). What it counts toward your goal is
                round(AMOUNT x the drink's factor). The reply names the day it counts on: your days
                follow your time zone (water-client zone).
                """,
            options: [
                forOption,
                OptionSpec("at", "WHEN", "when: 21:30, \"yesterday 21:30\", \"2026-11-30 21:30\" or ISO 8601"),
                OptionSpec("id", "UUID", "replay a drink with a known id: it is never counted twice"),
            ],
            examples: [
                "log", "log 200 tea", "log tea", "log mug", "log 33cl juice", "log 250 --at \"yesterday 21:30\"",
            ]),
        CommandSpec(
            "undo", summary: "remove the drink you logged last",
            details: """
                Removes the drink you logged most recently, if it counts in this week; a week that is
                over is never changed by undo (remove such a drink with water-client rm ID).
                """,
            options: [forOption], examples: ["undo"]),
        CommandSpec(
            "edit", "ID", summary: "change a drink's amount, time or both",
            details: """
                Changes a drink's amount, time or both. ID is the short id that today, history
                --entries and week --entries show (any unique start of it), or a full UUID.
                """,
            options: [
                forOption,
                OptionSpec("amount", "ML", "the new amount (1-2000 ml)"),
                OptionSpec("at", "WHEN", "the new time, like log --at"),
            ],
            examples: ["edit 9c1d2e3f --amount 300", "edit 9c1d --at \"yesterday 22:15\""]),
        CommandSpec(
            "rm", "ID", summary: "remove a drink",
            details: """
                Removes a drink. ID is the short id that today, history --entries and week --entries
                show (any unique start of it), or a full UUID; a start that fits several drinks lists them.
                """,
            options: [forOption], examples: ["rm 9c1d2e3f"]),
        CommandSpec(
            "today", summary: "today's progress and drinks, newest first",
            details: "Shows today's amount, goal, percent, what is left and the drinks, newest first.",
            options: [forOption], examples: ["today", "--json today"]),
        CommandSpec(
            "week", summary: "the last 7 days, a bar each against that day's goal",
            options: [forOption, OptionSpec("entries", nil, "also list each day's drinks with their ids")],
            examples: ["week", "week --entries"]),
        CommandSpec(
            "history", summary: "the last N days (1-366, default 7)",
            options: [
                forOption,
                OptionSpec("days", "N", "how many days, today included (1-366, default 7)"),
                OptionSpec("entries", nil, "also list each day's drinks with their ids"),
            ],
            examples: ["history --days 30", "history --days 3 --entries"]),
        CommandSpec(
            "goal", "[ML]", summary: "show or set your daily goal (500-10000 ml)",
            details:
                "Shows or sets your daily goal (500-10000 ml). A new goal applies from today; past days keep theirs.",
            options: [forOption], examples: ["goal", "goal 2500"]),
        CommandSpec(
            "excuse", "[DAY]", summary: "excuse a day or days (sick, travelling) from the board and streaks",
            details: """
                Excuses DAY (today, yesterday or YYYY-MM-DD; default today) or --from DAY --to DAY: an
                excused day leaves the board's average, neither counts for nor breaks a streak, and gets
                no nudges. At most 14 days in any 28, from a year back to 28 days ahead. Admins may
                excuse another member's days (--for). Works away from the server: the outbox keeps it.
                """,
            options: [
                OptionSpec("from", "DAY", "the first day of a range"),
                OptionSpec("to", "DAY", "the last day of a range (at most 14 days)"),
                OptionSpec("reason", "sick|travel|TEXT", "why (shown on the board and in --explain)"),
                forOption,
            ],
            examples: ["excuse --reason sick", "excuse --from 2026-12-07 --to 2026-12-11 --reason travel"]),
        CommandSpec(
            "unexcuse", "DAY...", summary: "take the excuse of days back",
            details: "Takes the excuse of each DAY back (today, yesterday or YYYY-MM-DD); a day not excused stays so.",
            options: [forOption],
            examples: ["unexcuse today", "unexcuse 2026-12-07 2026-12-08"]),
        CommandSpec(
            "cup", "[ML]", summary: "show or set your usual cup (1-2000 ml) and drink",
            details: """
                Shows or sets your usual cup (1-2000 ml), what log logs without an amount, and your
                usual drink (--drink), what log logs without a drink; and the quick cups.
                """,
            options: [
                forOption, OptionSpec("drink", "DRINK", "your usual drink, one of the household's (default water)"),
            ],
            examples: ["cup", "cup 330", "cup --drink tea"]),
        CommandSpec(
            "cup add", "NAME ML", summary: "keep a named cup: log NAME logs it",
            details: """
                Keeps a named cup of yours (or changes the one of that name): log NAME then logs ML
                millilitres of its drink (--drink; without it, your usual drink). NAME is a-z, 0-9 and
                -, at most 15 characters, and none of the household's drinks.
                """,
            options: [
                forOption, OptionSpec("drink", "DRINK", "what it holds (default: your usual drink when logged)"),
            ],
            examples: ["cup add mug 350", "cup add bottle 750", "cup add latte 250 --drink milk"]),
        CommandSpec(
            "cup ls", summary: "your quick cups and your named cups", options: [forOption], examples: ["cup ls"]),
        CommandSpec("cup rm", "NAME", summary: "forget a named cup", options: [forOption], examples: ["cup rm bottle"]),
        CommandSpec(
            "zone", "[ZONE]", summary: "show or move your days' time zone",
            details: """
                Shows the IANA time zone your days follow, or moves them to ZONE: every drink keeps
                its moment and counts on the day the new zone gives it. Times you type and times
                shown are in this zone.
                """,
            examples: ["zone", "zone America/New_York"]),
        CommandSpec(
            "board", summary: "the household's weekly ranking",
            details: """
                The household's weekly ranking by average daily progress (or --by total). --explain
                shows each day and which key broke a tie the screen does not show; --watch keeps it
                live, and waits for the server when it restarts. --history lists past weeks, each with
                its winner and where you came; the first board of a new week says who won the last.
                Members who chose privacy percent show no millilitres (-), hidden ones are not on it;
                your own row is always whole (see privacy --help).
                """,
            options: [
                weekOption,
                OptionSpec("by", "ORDER", "rank by progress (default) or total", choices: ["progress", "total"]),
                OptionSpec("explain", nil, "show each member's days and what broke ties"),
                OptionSpec("watch", nil, "keep the board on screen, redrawn on every change"),
                OptionSpec("history", nil, "list past weeks: each week's winner, your rank and percent"),
                OptionSpec("weeks", "N", "with --history: how many past weeks (1-52, default 8)"),
            ],
            examples: ["board", "board --week last --explain", "board --watch", "board --history --weeks 4"]),
        CommandSpec(
            "year", "[YYYY]", summary: "a year at a glance: a heatmap of your days",
            details: """
                Draws a year (default: this one) as a heatmap: a column per ISO week, rows Monday to
                Sunday, each day by how near it came to the goal (nothing, under 25 %, under 50 %,
                under 100 %, goal met), excused days and the days to come apart, then the days met,
                the best streak and the litres. Colour on a terminal (truecolor where COLORTERM says
                so); with NO_COLOR or in a pipe, the glyphs · ░ ▒ ▓ █, x for excused. --json gives the
                days.
                """,
            options: [
                OptionSpec("habit", "NAME", "the habit's checked days instead of water"),
                OptionSpec("for", "NAME", "another member of the household (their username)"),
            ],
            examples: ["year", "year 2025", "year --habit read", "year --for ben"]),
        CommandSpec(
            "privacy", "[LEVEL]", summary: "show or set what the household sees of you on the board",
            details: """
                Shows or sets what the rest of the household sees of you (LEVEL): on the board, its
                live view, --json and the wall (MQTT). full: everything, millilitres too. percent:
                your rank, percent, days met and streak, not your millilitres, drinks or per-day
                amounts. hidden: you are on no one else's board (their ranks are counted without
                you); you still see yourself, ranked among them, marked "only you see this". An
                admin's household export stays complete. A guardian sets a child's (--for), an
                admin anyone's. Away from the server it waits on this computer and is sent later;
                setting it twice is the same as once.
                """,
            options: [forOption],
            examples: ["privacy", "privacy percent", "privacy full", "privacy hidden --for kim"],
            argumentChoices: Privacy.allCases.map(\.description)),
        CommandSpec(
            "todo add", "TEXT", summary: "add an item to the household's shared list",
            details: "Adds an item (longer than 3 characters) at the bottom of the household's shared list.",
            examples: ["todo add \"buy water filters\""]),
        CommandSpec(
            "todo ls", summary: "the household's shared list, numbered from the top",
            examples: ["todo ls"]),
        CommandSpec(
            "todo done", "ID", summary: "mark an item done (safe to repeat)",
            details: """
                Marks an item done; ID is its number as todo ls last showed it on this terminal (refused,
                with the list now, when another item is there now), or its id. Repeating it changes nothing.
                """,
            examples: ["todo done 2"]),
        CommandSpec(
            "todo undone", "ID", summary: "reopen an item (safe to repeat)",
            details: """
                Reopens an item; ID is its number as todo ls last showed it on this terminal (refused, with
                the list now, when another item is there now), or its id. Repeating it changes nothing.
                """,
            examples: ["todo undone 2"]),
        CommandSpec(
            "todo rm", "ID", summary: "remove an item",
            details: """
                Removes an item; ID is its number as todo ls last showed it on this terminal, or its id.
                Typed twice, the second is refused (another item is at that number now).
                """,
            examples: ["todo rm 3"]),
        CommandSpec(
            "todo mv", "ID POSITION", summary: "move an item (POSITION 1 is the top)",
            examples: ["todo mv 4 1"]),
        CommandSpec(
            "habit add", "NAME", summary: "add a habit",
            details: """
                Adds a habit to check off day by day.
                Icons: \(habitIconNames.joined(separator: " ")).
                Colours: \(habitColorNames.joined(separator: " ")).
                """,
            options: [
                forOption,
                OptionSpec("icon", "ICON", "its icon (default alarm)", choices: habitIconNames),
                OptionSpec("color", "COLOR", "its colour (default blue)", choices: habitColorNames),
            ],
            examples: ["habit add Read --icon book --color green"]),
        CommandSpec(
            "habit ls", summary: "your habits and a week's check list",
            options: [forOption, weekOption],
            examples: ["habit ls", "habit ls --week last"]),
        CommandSpec(
            "habit check", "NAME|ID", summary: "check a habit off for a day (not a future one)",
            options: [forOption, dayOption],
            examples: ["habit check Read", "habit check Read --day yesterday"]),
        CommandSpec(
            "habit uncheck", "NAME|ID", summary: "take a day's check back",
            options: [forOption, dayOption],
            examples: ["habit uncheck Read --day 2026-11-29"]),
        CommandSpec(
            "habit rm", "NAME|ID", summary: "remove a habit", options: [forOption], examples: ["habit rm Read"]),
        // After habit's: the completions know an option's values by its name alone, and habit's
        // --icon has choices where a drink's is free text.
        CommandSpec(
            "drink ls", summary: "the household's drinks and how each counts",
            details: """
                Lists the household's drinks, each with its hydration factor: an entry of ML
                millilitres counts round(ML x factor) toward the goal, halves away from zero. The
                defaults are the Beverage Hydration Index's (Maughan et al., Am J Clin Nutr 2016).
                """,
            examples: ["drink ls"]),
        CommandSpec(
            "drink add", "NAME", summary: "add a drink (admins)",
            details: """
                Adds a drink: NAME is a-z, 0-9 and -, at most 15 characters; its factor is 0.10 to
                2.00, at most two decimals.
                """,
            options: [
                OptionSpec("factor", "F", "how it counts against water (0.10-2.00; water is 1.00)"),
                OptionSpec("icon", "ICON", "a short icon, like an emoji"),
            ],
            examples: ["drink add cocoa --factor 1.20", "drink add kombucha --factor 0.95 --icon 🍶"]),
        CommandSpec(
            "drink set", "NAME", summary: "change a drink's factor or icon (admins; past days keep theirs)",
            details: """
                Changes how a drink counts from now on: every drink already logged keeps the factor it
                was logged at, so no past day changes.
                """,
            options: [
                OptionSpec("factor", "F", "the new factor (0.10-2.00)"),
                OptionSpec("icon", "ICON", "the new icon"),
            ],
            examples: ["drink set coffee --factor 0.95"]),
        CommandSpec(
            "drink rm", "NAME", summary: "remove a drink (admins; water stays)",
            details: "Removes a drink; drinks already logged keep it. Water cannot be removed.",
            examples: ["drink rm sports"]),
        CommandSpec(
            "member add", "NAME", summary: "add a member (admins)",
            details: """
                Adds a member; their password is asked for twice, or read from standard input. A child
                (--child) has no password and cannot log in until an admin gives one (member reset);
                admins and the child's guardians (member guardian) act for them with --for.
                """,
            options: [
                OptionSpec("display-name", "TEXT", "the name the board shows"),
                OptionSpec("admin", nil, "make them an admin"),
                OptionSpec("time-zone", "ZONE", "the zone their days follow (default: the household's)"),
                OptionSpec("password-stdin", nil, "read their password from standard input"),
                OptionSpec("child", nil, "a child: no password and no login; admins and guardians log for them"),
            ],
            examples: ["member add ben --display-name Ben --time-zone Europe/Berlin", "member add kim --child"]),
        CommandSpec(
            "member guardian", "CHILD add|rm MEMBER", summary: "let a member act for a child, or stop (admins)",
            details: """
                Makes MEMBER a guardian of CHILD (a member added with --child), or no longer one: a
                guardian acts for the child with --for CHILD on log, undo, edit, rm, today, week,
                history, goal, cup and habit. Admins act for anyone. Repeating it changes nothing.
                """,
            examples: ["member guardian kim add ann", "member guardian kim rm ann"]),
        CommandSpec(
            "member admin", "NAME on|off", summary: "make a member an admin, or an admin a member (admins)",
            details: "Never the household's last admin: make another admin first.",
            examples: ["member admin ben on", "member admin ben off"]),
        CommandSpec(
            "member rename", "NAME", summary: "change a member's username or display name (admins)",
            options: [
                OptionSpec("to", "NEW", "the new username"),
                OptionSpec("display-name", "TEXT", "the new display name"),
            ],
            examples: ["member rename ben --to benjamin", "member rename ben --display-name \"Ben B.\""]),
        CommandSpec(
            "member reset", "NAME", summary: "set a member's password (admins)",
            options: [passwordFromStandardInput],
            examples: ["member reset ben"]),
        CommandSpec(
            "member rm", "NAME", summary: "remove a member (admins); their data stays on the server",
            details: """
                Removes a member: they can no longer log in and leave the board. Their data stays on
                the server, and member restore NAME brings them back. Asks on a terminal; --yes for
                scripts. Removing yourself ends your own session: it says so first.
                """,
            options: [OptionSpec("yes", nil, "do not ask")],
            examples: ["member rm ben --yes"]),
        CommandSpec(
            "member restore", "NAME", summary: "bring a removed member back, with their data (admins)",
            details: """
                Brings back a member that member rm removed: the same account and password (they log
                in again) and every drink and habit they had, which the server kept.
                """,
            examples: ["member restore ben"]),
        CommandSpec("member ls", summary: "the household's members", examples: ["member ls"]),
        CommandSpec(
            "export", summary: "your whole history out (admins: the household's)",
            details: """
                Writes your whole history (entries with their drink and factor, each day's goal, your
                usual cup, habits and check-ins); admins may export the whole household (a member whose
                archive cannot be read is named on standard error and left out).
                """,
            options: [
                OptionSpec("format", "FORMAT", "json (default) or csv", choices: ["json", "csv"]),
                OptionSpec("household", nil, "every member (admins)"),
                OptionSpec("output", "FILE", "write to FILE (0600) instead of standard output"),
            ],
            examples: ["export --output water.json", "export --format csv --household --output family.csv"]),
        CommandSpec(
            "import", "FILE", summary: "read an export back (twice changes nothing)",
            details: """
                Reads back an export of one member (JSON or CSV) into your archive, checked like the
                live commands. Ids make it idempotent: importing twice changes nothing. An export
                of another member is refused unless you say --yes (their drinks would become yours).
                """,
            options: [OptionSpec("yes", nil, "take another member's export into your archive")],
            examples: ["import water.json"]),
        CommandSpec(
            "sync", summary: "send what waits on this computer, and refresh what prompt shows",
            details: """
                Sends the writes kept on this computer while the server could not be reached (every
                other command does this first too), in the order they were made, and says what was
                sent and what the server refused. Then refreshes what prompt shows.
                """,
            options: [OptionSpec("quiet", nil, "say nothing (for prompt's background refresh)")],
            examples: ["sync"]),
        CommandSpec(
            "outbox", summary: "what waits on this computer to be sent, and what the server refused",
            details: """
                When the server cannot be reached, log, edit, rm, undo, habit check|uncheck and todo
                add|done|undone keep their write on this computer ($XDG_STATE_HOME/water/outbox) and
                exit 0; the next command that reaches the server sends them, once each, with their
                original time. outbox lists them, numbered; a write the server refused stays here
                until you retry or drop it.
                """,
            examples: ["outbox", "--json outbox"]),
        CommandSpec(
            "outbox retry", "[N]", summary: "put a refused write back in line (and send it now if it can)",
            options: [OptionSpec("all", nil, "every refused write")], examples: ["outbox retry 1"]),
        CommandSpec(
            "outbox drop", "[N]", summary: "forget a refused write",
            options: [OptionSpec("all", nil, "every refused write")], examples: ["outbox drop 1", "outbox drop --all"]),
        CommandSpec(
            "prompt", summary: "a short status for a shell prompt or tmux, from this computer only",
            details: """
                Prints today's amount and goal from what this computer last heard (and the drinks
                waiting to be sent): no network, no login check, so it costs nothing in a prompt.
                When that is older than 5 minutes it refreshes it in the background (water-client
                sync --quiet), never waiting for it. --format takes a template with {amount}, {goal},
                {percent}, {left}, {unsent}, {mark} ("*" when something waits to be sent, "?"
                when nothing was heard today) and {overtaken} ("overtaken by Dad" when someone passed
                you on the board today, as the last board or sync heard; empty otherwise).
                """,
            options: [
                OptionSpec("format", "TEMPLATE", "what to print (default: \"💧 {amount}/{goal}{mark}\")"),
                OptionSpec("plain", nil, "no emoji: \"water {amount}/{goal} ml{mark}\""),
            ],
            examples: ["prompt", "prompt --format '{percent}%'", "prompt --format '{amount} ml {overtaken}'"]),
        CommandSpec(
            "nudge", summary: "a reminder when you are behind the day's pace (for cron, a timer or a hook)",
            details: """
                Prints a one-line reminder when you have drunk less than the day's goal calls for by
                now across your waking hours (08:00-22:00 in your time zone unless set with nudge on
                --hours), and nothing otherwise: never before or after those hours, never once the
                goal is met, and at most once per --every minutes. --notify sends it as a desktop
                notification (notify-send) as well. --overtaken also says who overtook you on the
                board today (even once the goal is met). nudge off turns it off on this computer.
                """,
            options: [
                OptionSpec("notify", nil, "also as a desktop notification, where notify-send exists"),
                OptionSpec("every", "MINUTES", "at most one reminder per this many minutes (default 60)"),
                OptionSpec("overtaken", nil, "also say who overtook you on the board today"),
            ],
            examples: ["nudge", "nudge --notify --every 90", "nudge --overtaken"]),
        CommandSpec(
            "nudge on", summary: "turn nudges on (and set your waking hours)",
            options: [OptionSpec("hours", "HH:MM-HH:MM", "your waking hours (default 08:00-22:00)")],
            examples: ["nudge on --hours 07:30-21:30"]),
        CommandSpec("nudge off", summary: "turn nudges off on this computer", examples: ["nudge off"]),
        CommandSpec(
            "help", "[COMMAND]", summary: "show the help of a command", examples: ["help todo add"]),
        CommandSpec(
            "completion", "SHELL", summary: "print the completion script for bash, zsh or fish",
            details: "Prints the completion script for a shell (deploy/install installs them).",
            examples: ["completion bash > ~/.local/share/bash-completion/completions/water-client"],
            argumentChoices: ProgramSpec.Shell.allCases.map(\.rawValue)),
        CommandSpec(
            "manpage", summary: "print this manual page in roff (man 1 water-client)",
            examples: ["manpage | man -l -"]),
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

private let habitIconNames = HabitIcon.allCases.map(\.description)
private let habitColorNames = HabitColor.allCases.map(\.description)
private let weekOption = OptionSpec("week", "last|YYYY-Www", "last week, or a week like 2026-W49 (default: this week)")
private let dayOption = OptionSpec("day", "DAY", "today (default), yesterday or YYYY-MM-DD")
private let forOption = OptionSpec("for", "MEMBER", "act for MEMBER: a child you are a guardian of (admins: anyone)")
private let passwordFromStandardInput = OptionSpec("password-stdin", nil, "read the password from standard input")
