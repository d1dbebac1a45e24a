import Foundation
import WaterCLI
import WaterClient
import WaterProtocol

let help: [String: String] = [
    "": """
    usage: water-client [--server HOST:PORT] [--json] [--plaintext] <command> [options]

    The household water tracker's command line. The server is --server, else $WATER_SERVER,
    else the one you logged in to, else 127.0.0.1:\(WireProtocol.defaultPort). Connections use
    TLS 1.3; the first login pins the server's certificate (see login --help). --plaintext (or
    WATER_PLAINTEXT=1) turns TLS off: insecure, only for a server on this machine.

      login [NAME] [--password-stdin] [--fingerprint SHA256:...]
                                        log in (the session is kept in ~/.config/water, 0600)
      logout | whoami | passwd          end the session, show who you are, change your password
      log [ML] [--at WHEN] [--id UUID]  log a drink (default: your usual cup, now)
      undo                              remove the drink you logged last
      edit ID [--amount ML] [--at WHEN] change a drink (ID: the short id from today)
      rm ID                             remove a drink
      today                             today's progress and drinks, newest first
      week | history --days N           a bar per day against its goal
      goal [ML] | cup [ML]              show or set your daily goal or usual cup
      zone [ZONE]                       show or move your days' time zone (e.g. Europe/Berlin)
      board [--week last|YYYY-Www] [--by total] [--explain] [--watch]
                                        the household's weekly ranking
      todo add TEXT | ls | done ID | undone ID | rm ID | mv ID POSITION
                                        the household's shared todo list
      habit add NAME [--icon ICON] [--color COLOR] | ls [--week last|YYYY-Www]
      habit check|uncheck NAME [--day WHEN] | rm NAME
                                        your habits and their 7-day check lists
      member add|rename|reset|rm|ls     manage the household (admins)
      export --format json|csv [--household] [--output FILE]
      import FILE                       your whole history out, and back in (twice changes nothing)

    WHEN is 21:30, "yesterday 21:30", "2026-11-30 21:30" or ISO 8601. --json prints replies with
    the proto's field names. Exit codes: 0 ok, 1 failed, 64 usage, 65 bad data, 69 server
    unavailable, 77 not allowed. `water-client COMMAND --help` shows one command.
    """,
    "login":
        "usage: water-client login [NAME] [--password-stdin] [--fingerprint SHA256:...]\nLogs in; the password is asked for without echo, or read from standard input.\nThe first login to a server pins its certificate, as ssh does: it shows the fingerprint and asks,\nor --fingerprint pins the one `water-server status` shows on the server without asking. A server\nwhose certificate the system's CAs vouch for needs no pin. A changed certificate is refused.",
    "logout": "usage: water-client logout\nEnds this session on the server and forgets it here.",
    "whoami": "usage: water-client whoami\nShows who you are logged in as.",
    "passwd":
        "usage: water-client passwd [--password-stdin]\nChanges your password (with --password-stdin: current, then new, one per line). Your other sessions end.",
    "log":
        "usage: water-client log [ML] [--at WHEN] [--id UUID]\nLogs a drink of ML millilitres (1-2000; default: your usual cup) at WHEN (default: now).\n--id replays a drink with a known id: it is never counted twice.",
    "undo":
        "usage: water-client undo\nRemoves the drink you logged most recently, if it counts in this week; a week that is over\nis never changed by undo (remove such a drink with water-client rm ID).",
    "edit":
        "usage: water-client edit ID [--amount ML] [--at WHEN]\nChanges a drink's amount, time or both. ID is the short id `today` shows, or a full UUID.",
    "rm": "usage: water-client rm ID\nRemoves a drink.",
    "today":
        "usage: water-client today\nShows today's amount, goal, percent, what is left and the drinks, newest first.",
    "week": "usage: water-client week\nShows the last 7 days, a bar each against that day's goal.",
    "history": "usage: water-client history [--days N]\nShows the last N days (1-366, default 7).",
    "goal":
        "usage: water-client goal [ML]\nShows or sets your daily goal (500-10000 ml). A new goal applies from today; past days keep theirs.",
    "cup": "usage: water-client cup [ML]\nShows or sets your usual cup (1-2000 ml) and the quick cups.",
    "zone":
        "usage: water-client zone [ZONE]\nShows the IANA time zone your days follow, or moves them to ZONE (e.g. water-client zone America/New_York):\nevery drink keeps its moment and counts on the day the new zone gives it.",
    "board":
        "usage: water-client board [--week last|YYYY-Www] [--by total] [--explain] [--watch]\nThe household's weekly ranking by average daily progress (or --by total); --explain shows each day and which key broke a tie the screen does not show; --watch keeps it live.",
    "todo":
        "usage: water-client todo add TEXT | ls | done ID | undone ID | rm ID | mv ID POSITION\nThe household's shared list. ID is the item's number in `todo ls` (or its id); done marks it done and undone reopens it (both are safe to repeat); POSITION 1 is the top.\nText must be longer than 3 characters.",
    "habit":
        "usage: water-client habit add NAME [--icon ICON] [--color COLOR]\n       water-client habit ls [--week last|YYYY-Www]\n       water-client habit check|uncheck NAME|ID [--day today|yesterday|YYYY-MM-DD]\n       water-client habit rm NAME|ID\nIcons: alarm book pencil desktopcomputer gamecontroller sportscourt lightbulb.\nColours: blue green yellow orange coral pink purple indigo red. A day in the future cannot be checked.",
    "export":
        "usage: water-client export [--format json|csv] [--household] [--output FILE]\nWrites your whole history (entries, each day's goal, habits and check-ins); admins may export the whole household.",
    "import":
        "usage: water-client import FILE\nReads back an export of one member into your archive. Ids make it idempotent: importing twice changes nothing.",
    "member":
        "usage: water-client member add NAME [--display-name TEXT] [--admin] [--time-zone ZONE] [--password-stdin]\n       water-client member rename NAME [--to NEW] [--display-name TEXT]\n       water-client member reset NAME [--password-stdin]\n       water-client member rm NAME [--yes]   (asks on a terminal; --yes for scripts; their data stays on the server)\n       water-client member ls",
]

// Ctrl-C and SIGTERM end the client, even when the parent started it with them ignored or
// blocked (both are inherited across exec); `board --watch` runs until then.
signal(SIGINT, SIG_DFL)
signal(SIGTERM, SIG_DFL)
var endingSignals = sigset_t()
sigemptyset(&endingSignals)
sigaddset(&endingSignals, SIGINT)
sigaddset(&endingSignals, SIGTERM)
sigprocmask(SIG_UNBLOCK, &endingSignals, nil)

var arguments = Arguments(CommandLine.arguments.dropFirst())
let exitStatus: ExitCode
do {
    let server = try arguments.option("server")
    let json = arguments.flag("json")
    let plaintext = arguments.flag("plaintext")
    let wantsHelp = arguments.flag("help") || arguments.flag("h")
    let command = arguments.positional()
    if wantsHelp || command == nil || command == "help" {
        Terminal.print(help[command ?? ""] ?? help[""]!)
        exit(ExitCode.ok.rawValue)
    }
    let environment = ProcessInfo.processInfo.environment
    var invocation = Invocation(
        arguments: arguments, json: json, serverOption: server, environment: environment,
        files: ClientFiles(environment: environment), plaintext: plaintext || environment["WATER_PLAINTEXT"] == "1")
    switch command! {
    case "login": try SessionCommands.login(&invocation)
    case "logout": try SessionCommands.logout(&invocation)
    case "whoami": try SessionCommands.whoami(&invocation)
    case "passwd": try SessionCommands.passwd(&invocation)
    case "log": try WaterCommands.log(&invocation)
    case "undo": try WaterCommands.undo(&invocation)
    case "edit": try WaterCommands.edit(&invocation)
    case "rm": try WaterCommands.remove(&invocation)
    case "today": try WaterCommands.today(&invocation)
    case "week": try WaterCommands.history(&invocation, days: 7)
    case "history": try WaterCommands.history(&invocation, days: nil)
    case "goal": try WaterCommands.goal(&invocation)
    case "cup": try WaterCommands.cup(&invocation)
    case "zone": try WaterCommands.zone(&invocation)
    case "board": try BoardCommand.run(&invocation)
    case "member": try MemberCommands.run(&invocation)
    case "todo": try TodoCommand.run(&invocation)
    case "habit": try HabitCommand.run(&invocation)
    case "export": try TransferCommands.export(&invocation)
    case "import": try TransferCommands.import(&invocation)
    case let other: throw UsageError("unknown command \(other)")
    }
    invocation.saveTLSSession()
    exitStatus = .ok
} catch let error as UsageError {
    Terminal.error("water-client: \(error.message); see water-client --help")
    exitStatus = .usage
} catch let error as WaterError {
    Terminal.error("water-client: \(error.message)")
    exitStatus = exitCode(for: error)
} catch {
    Terminal.error("water-client: \(error)")
    exitStatus = .failure
}
exit(exitStatus.rawValue)
