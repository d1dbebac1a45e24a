import Foundation
import WaterProtocol

let usage = """
    usage: water-server <command> [options]

    The household water tracker's server. Protocol version \(WireProtocol.version), \
    default port \(WireProtocol.defaultPort).

    commands:
      help        show this help
    """

switch CommandLine.arguments.dropFirst().first {
case nil, "help", "--help", "-h":
    print(usage)
case let command?:
    FileHandle.standardError.write(Data("water-server: unknown command '\(command)'; see 'water-server --help'\n".utf8))
    exit(64)
}
