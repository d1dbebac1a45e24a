import Glibc

endOnSignals()
// `prompt` runs at every shell prompt: straight to its code, before the command table is built
// (`prompt --help` still goes through the table).
if let status = PromptCommand.runEarly(CommandLine.arguments) { exit(status.rawValue) }
exit(clientCommands.run(CommandLine.arguments.dropFirst()).rawValue)
