import FoundationEssentials
import Glibc
import WaterCLI
import WaterClient
import WaterProtocol

// Ctrl-C and SIGTERM end the client, even when the parent started it with them ignored or
// blocked (both are inherited across exec); `board --watch` runs until then.
signal(SIGINT, SIG_DFL)
signal(SIGTERM, SIG_DFL)
var endingSignals = sigset_t()
sigemptyset(&endingSignals)
sigaddset(&endingSignals, SIGINT)
sigaddset(&endingSignals, SIGTERM)
sigprocmask(SIG_UNBLOCK, &endingSignals, nil)

// `prompt` runs at every shell prompt: straight to its code, before the command table is built
// (`prompt --help` still goes through the table).
if let status = PromptCommand.runEarly(CommandLine.arguments) { exit(status.rawValue) }

var arguments = Arguments(CommandLine.arguments.dropFirst())
// Taken first, so that even a usage error is reported as JSON.
let json = arguments.flag("json")
let exitStatus: ExitCode
do {
    let server = try arguments.option("server")
    let plaintext = arguments.flag("plaintext")
    let command = try clientCommandLine.commandToRun(&arguments, protocolVersion: WireProtocol.version)
    let environment = ProcessInfo.processInfo.environment
    var invocation = Invocation(
        arguments: arguments, json: json, serverOption: server, environment: environment,
        files: ClientFiles(environment: environment), plaintext: plaintext || environment["WATER_PLAINTEXT"] == "1")
    let action = command.path.count > 1 ? command.path[1] : ""
    switch command.path[0] {
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
    case "excuse": try ExcuseCommands.excuse(&invocation)
    case "unexcuse": try ExcuseCommands.unexcuse(&invocation)
    case "cup":
        if action.isEmpty {
            try WaterCommands.cup(&invocation)
        } else {
            try WaterCommands.namedCup(&invocation, action: action)
        }
    case "zone": try WaterCommands.zone(&invocation)
    case "drink": try DrinkCommands.run(&invocation, action: action)
    case "board": try BoardCommand.run(&invocation)
    case "year": try YearCommand.run(&invocation)
    case "privacy": try PrivacyCommand.run(&invocation)
    case "member": try MemberCommands.run(&invocation, action: action)
    case "todo": try TodoCommand.run(&invocation, action: action)
    case "habit": try HabitCommand.run(&invocation, action: action)
    case "export": try TransferCommands.export(&invocation)
    case "import": try TransferCommands.import(&invocation)
    case "sync": try OutboxCommands.sync(&invocation)
    case "outbox":
        switch action {
        case "retry": try OutboxCommands.retry(&invocation)
        case "drop": try OutboxCommands.drop(&invocation)
        default: try OutboxCommands.list(&invocation)
        }
    case "prompt":
        try PromptCommand.run(
            &invocation.arguments, environment: environment, serverOption: server, json: invocation.json)
    case "nudge": try NudgeCommand.run(&invocation, action: action)
    case "completion": try clientCommandLine.printCompletion(&invocation.arguments)
    case "manpage": try clientCommandLine.printManualPage(&invocation.arguments)
    case let other: preconditionFailure("\(other) is in clientCommandLine but has no code")
    }
    invocation.saveTLSSession()
    exitStatus = .ok
} catch let reported as ReportedFailure {
    exitStatus = reported.exitCode
} catch {
    exitStatus = ErrorJSON(error).print(program: "water-client", json: json)
}
exit(exitStatus.rawValue)
