import Glibc

// Before any thread exists: `serve` waits for SIGTERM and SIGINT with them blocked.
ServeCommand.blockSignalsBeforeServing(CommandLine.arguments)
exit(serverCommands.run(CommandLine.arguments.dropFirst()).rawValue)
