import Foundation
import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterTransport
import WaterZoneInfo

/// One run of `water-client`: the parsed global options, the saved session and the output.
struct Invocation {
    var arguments: Arguments
    let json: Bool
    let serverOption: String?
    let environment: [String: String]
    let files: ClientFiles

    /// The server to talk to: --server, else WATER_SERVER, else the saved session's, else local.
    func server() throws(UsageError) -> HostPort {
        guard
            let server = ClientConfiguration.resolveServer(
                option: serverOption, environment: environment,
                saved: files.loadSession()?.server)
        else {
            let text = serverOption ?? environment[ClientConfiguration.serverEnvironmentVariable] ?? ""
            throw UsageError("the server must be HOST:PORT, got \(text)")
        }
        return server
    }

    /// A connected client with no login (for `login`).
    func anonymousClient() throws -> WaterClient {
        try WaterClient(configuration: ClientConfiguration(server: try server()), installation: files.installationID())
    }

    /// A connected client with the saved login.
    func client() throws -> WaterClient {
        guard let session = files.loadSession() else {
            throw WaterError(.unauthenticated, "not logged in: run water-client login")
        }
        return try WaterClient(
            configuration: ClientConfiguration(server: try server()), token: session.token,
            installation: files.installationID())
    }

    /// Prints `message` as JSON with --json, else the human text.
    func output<Message: ProtoMessage>(_ message: Message, human: () -> String) {
        if json {
            Terminal.print(Self.json(message))
        } else {
            Terminal.print(human())
        }
    }

    static func json<Message: Encodable>(_ message: Message) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// `--at` as milliseconds since 1970, or 0 (the server's now) when not given.
    static func time(_ option: String?) throws(UsageError) -> Int64 {
        guard let option else { return 0 }
        guard let time = When.parse(option, now: UnixTime.nowMilliseconds(), zone: localZone) else {
            throw UsageError("--at must be like 21:30, \"yesterday 21:30\" or 2026-11-30T21:30, got \"\(option)\"")
        }
        return time
    }

    /// `--week` as the API takes it (empty: the current week).
    static func week(_ option: String?) throws(UsageError) -> String {
        guard let week = When.week(option, now: UnixTime.nowMilliseconds(), zone: localZone) else {
            throw UsageError("--week takes last or a week like 2026-W49, got \(option ?? "")")
        }
        return week
    }

    /// The local time zone of this terminal, for reading and showing times.
    static var localZone: MemberTimeZone {
        ZoneInfo.system.local()
    }
}

/// How each status code of the server ends the process (DESIGN.md section 8).
func exitCode(for error: WaterError) -> ExitCode {
    switch error.code {
    case .invalidArgument, .outOfRange, .alreadyExists, .notFound: .dataError
    case .unavailable, .deadlineExceeded, .resourceExhausted: .unavailable
    case .permissionDenied, .unauthenticated: .notAllowed
    default: .failure
    }
}
