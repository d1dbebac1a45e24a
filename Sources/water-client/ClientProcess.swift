import FoundationEssentials
import Glibc
import WaterCLI
import WaterClient
import WaterProtocol

/// Ctrl-C and SIGTERM end the client, even when the parent started it with them ignored or
/// blocked (both are inherited across exec); `board --watch` runs until then.
func endOnSignals() {
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
    var endingSignals = sigset_t()
    sigemptyset(&endingSignals)
    sigaddset(&endingSignals, SIGINT)
    sigaddset(&endingSignals, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &endingSignals, nil)
}

extension CommandTable where Context == Invocation {
    /// Runs the command `words` (the command line without the program's name) asks for, and
    /// returns how the process ends: a failure is reported on standard error first, as one
    /// JSON object with --json.
    func run(_ words: some Sequence<String>) -> ExitCode {
        var arguments = Arguments(words)
        // Taken first, so that even a usage error is reported as JSON.
        let json = arguments.flag("json")
        do {
            let server = try arguments.option("server")
            let plaintext = arguments.flag("plaintext")
            let command = try commandToRun(&arguments, protocolVersion: WireProtocol.version)
            let environment = ProcessInfo.processInfo.environment
            var invocation = Invocation(
                arguments: arguments, json: json, serverOption: server, environment: environment,
                files: ClientFiles(environment: environment),
                plaintext: plaintext || environment["WATER_PLAINTEXT"] == "1")
            try command.run(&invocation)
            invocation.saveTLSSession()
            return .ok
        } catch let reported as ReportedFailure {
            return reported.exitCode
        } catch {
            return ErrorJSON(error).print(program: "water-client", json: json)
        }
    }
}
