import Foundation
import WaterClient
import WaterProtocol

let usage = """
    usage: water-client [--server HOST:PORT] <command> [options]

    The household water tracker's command line (protocol version \(WireProtocol.version)).
    The server is --server, else $\(ClientConfiguration.serverEnvironmentVariable), else 127.0.0.1:\(WireProtocol.defaultPort).

    commands:
      help        show this help
    """

switch CommandLine.arguments.dropFirst().first {
case nil, "help", "--help", "-h":
    print(usage)
case let command?:
    FileHandle.standardError.write(Data("water-client: unknown command '\(command)'; see 'water-client --help'\n".utf8))
    exit(64)
}
