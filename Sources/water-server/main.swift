import Dispatch
import Glibc
import WaterCLI
import WaterCore
import WaterLog
import WaterProtocol
import WaterServer
import WaterStore
import WaterTransport

let usage = """
    usage: water-server <command> [options]

    The household water tracker's server (protocol version \(WireProtocol.version)).

    commands:
      serve --data DIR [--listen HOST:PORT]     serve the household (default 127.0.0.1:\(WireProtocol.defaultPort))
      init --data DIR --admin NAME              create the data directory and its first admin
      check --data DIR                          verify every archive; exit 1 when any is protected
      passwd NAME --data DIR                    set a member's password (server stopped)
      status --data DIR                         uptime, connections, members, archive sizes, compactions
      backup --data DIR --to PATH               copy the data, also while the server runs
      restore --from PATH --data DIR [--force]  put a backup back (server stopped)

    options of serve:
      --time-zone ZONE          the household's IANA time zone (default: $TZ, /etc/timezone, or UTC)
      --max-connections N       connections served at once (default 256)
      --max-calls N             calls in flight per connection (default 32)
      --max-frame BYTES         largest frame payload (default 1048576)
      --frame-deadline SECONDS  time to deliver a started frame (default 10)
      --idle-timeout SECONDS    close connections silent this long (default 300)
      --password-strength interactive|minimum   argon2id cost (default interactive)
      --clock UNIX_MS           start the server's clock at this time (tests and demonstrations)

    init and passwd read the password from a hidden prompt, or with --password-stdin from the
    first line of standard input.
    """

/// The household's zone: the option, else this machine's.
func householdTimeZone(_ option: String?) throws(UsageError) -> MemberTimeZone {
    guard let option else { return MemberTimeZone.system }
    guard let zone = MemberTimeZone(identifier: option) else {
        throw UsageError("--time-zone \(option) is not a time zone this system knows (try Europe/Berlin)")
    }
    return zone
}

func strength(_ option: String?) throws(UsageError) -> PasswordHasher.Strength {
    switch option {
    case nil, "interactive": return .interactive
    case "minimum": return .minimum
    case let other?: throw UsageError("--password-strength must be interactive or minimum, got \(other)")
    }
}

func requireData(_ arguments: inout Arguments) throws(UsageError) -> String {
    guard let data = try arguments.option("data") else { throw UsageError("--data DIR is required") }
    return data
}

/// The signal sources live as long as the process.
nonisolated(unsafe) var signalSources: [any DispatchSourceSignal] = []

func serve(_ arguments: inout Arguments) throws -> Never {
    var configuration = ServerConfiguration(dataDirectory: try requireData(&arguments))
    if let listen = try arguments.option("listen") {
        guard let address = HostPort(parsing: listen, defaultPort: WireProtocol.defaultPort) else {
            throw UsageError("--listen must be HOST:PORT, got \(listen)")
        }
        configuration.listen = address
    }
    configuration.householdTimeZone = try householdTimeZone(try arguments.option("time-zone"))
    configuration.maximumConnections = try arguments.integer("max-connections", in: 1...100_000) ?? configuration.maximumConnections
    configuration.maximumCallsInFlight = try arguments.integer("max-calls", in: 1...10_000) ?? configuration.maximumCallsInFlight
    configuration.maximumPayloadLength = try arguments.integer("max-frame", in: 1024...(64 << 20)) ?? configuration.maximumPayloadLength
    if let seconds = try arguments.integer("frame-deadline", in: 1...3600) { configuration.frameDeadline = .seconds(seconds) }
    if let seconds = try arguments.integer("idle-timeout", in: 1...86_400) { configuration.idleTimeout = .seconds(seconds) }
    configuration.passwordStrength = try strength(try arguments.option("password-strength"))
    if let clock = try arguments.integer("clock", in: Int64(946_684_800_000)...Int64(4_102_444_800_000)) {
        configuration.clockOffsetMilliseconds = clock - UnixTime.nowMilliseconds()
    }
    try arguments.finish()

    let logger = Logger.standardError()
    let server = try Server(configuration: configuration, logger: logger)
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    // SIGTERM and SIGINT stop accepting, let calls in flight finish, flush and exit 0.
    for number in [SIGTERM, SIGINT] {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler { server.beginGracefulShutdown() }
        source.activate()
        signalSources.append(source)
    }
    server.start()
    Terminal.print("listening on \(server.boundAddress)")
    DispatchQueue.global().async {
        server.waitUntilStopped(timeout: .seconds(3_600 * 24 * 365))
        exit(ExitCode.ok.rawValue)
    }
    dispatchMain()
}

func initialize(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    guard let admin = try arguments.option("admin") else { throw UsageError("--admin NAME is required") }
    let fromStandardInput = arguments.flag("password-stdin")
    let zone = try householdTimeZone(try arguments.option("time-zone"))
    let hashing = try strength(try arguments.option("password-strength"))
    try arguments.finish()
    guard let password = Terminal.password(fromStandardInput: fromStandardInput, prompt: "password for \(admin): ",
                                           confirm: !fromStandardInput)
    else { throw AdminCommands.Failure(description: "no password given") }
    let account = try AdminCommands.initialize(dataDirectory: data, admin: admin, password: password, timeZone: zone,
                                               strength: hashing, logger: .standardError(minimumLevel: .warning))
    Terminal.print("created \(data) with admin \(account.username); start it with: water-server serve --data \(data)")
}

func check(_ arguments: inout Arguments) throws -> ExitCode {
    let data = try requireData(&arguments)
    try arguments.finish()
    let results = try AdminCommands.check(dataDirectory: data, logger: .silent)
    for (path, problem) in results {
        Terminal.print(problem.map { "PROTECTED \(path): \($0)" } ?? "ok        \(path)")
    }
    let protected = results.filter { $0.problem != nil }.count
    Terminal.print(protected == 0 ? "all \(results.count) archives are healthy" : "\(protected) of \(results.count) archives are protected")
    return protected == 0 ? .ok : .failure
}

func passwd(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    let fromStandardInput = arguments.flag("password-stdin")
    let hashing = try strength(try arguments.option("password-strength"))
    guard let name = arguments.positional() else { throw UsageError("passwd needs the member's username") }
    try arguments.finish()
    guard let password = Terminal.password(fromStandardInput: fromStandardInput, prompt: "new password for \(name): ",
                                           confirm: !fromStandardInput)
    else { throw AdminCommands.Failure(description: "no password given") }
    try AdminCommands.resetPassword(dataDirectory: data, username: name, password: password, strength: hashing,
                                    logger: .standardError(minimumLevel: .warning))
    Terminal.print("password of \(name) changed; their sessions have ended")
}

func status(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    try arguments.finish()
    Terminal.print(try StatusReport.render(dataDirectory: data, now: UnixTime.nowMilliseconds()))
}

func backup(_ arguments: inout Arguments) throws -> ExitCode {
    let data = try requireData(&arguments)
    guard let destination = try arguments.option("to") else { throw UsageError("--to PATH is required") }
    try arguments.finish()
    let archives = try Backup.copy(from: data, to: destination)
    // Prove the copy reads: every archive loads and passes its checks.
    let problems = try AdminCommands.check(dataDirectory: destination, logger: .silent).filter { $0.problem != nil }
    for (path, problem) in problems { Terminal.error("water-server: the copy of \(path) does not read: \(problem ?? "")") }
    guard problems.isEmpty else { return .failure }
    Terminal.print("backed up \(archives) archives of \(data) to \(destination); all of them read back")
    return .ok
}

func restore(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    guard let backup = try arguments.option("from") else { throw UsageError("--from PATH is required") }
    let force = arguments.flag("force")
    try arguments.finish()
    // A running server holds the lock: never pull its directory away from under it.
    if access("\(data)/lock", F_OK) == 0 {
        _ = try AdminCommands.check(dataDirectory: data, logger: .silent)
    }
    let aside = try Backup.restore(from: backup, to: data, force: force, now: UnixTime.nowMilliseconds())
    if let aside { Terminal.print("the data that was in \(data) is kept in \(aside)") }
    Terminal.print("restored \(backup) into \(data); start it with: water-server serve --data \(data)")
}

var arguments = Arguments(CommandLine.arguments.dropFirst())
let command = arguments.positional()
do {
    switch command {
    case nil, "help":
        Terminal.print(usage)
    case _ where arguments.flag("help"):
        Terminal.print(usage)
    case "serve":
        try serve(&arguments)
    case "init":
        try initialize(&arguments)
    case "check":
        exit(try check(&arguments).rawValue)
    case "passwd":
        try passwd(&arguments)
    case "status":
        try status(&arguments)
    case "backup":
        exit(try backup(&arguments).rawValue)
    case "restore":
        try restore(&arguments)
    case let other?:
        throw UsageError("unknown command \(other)")
    }
} catch let error as UsageError {
    Terminal.error("water-server: \(error.message); see water-server --help")
    exit(ExitCode.usage.rawValue)
} catch let error as ArchiveError where error.code == .locked {
    Terminal.error("water-server: \(error.message)")
    exit(ExitCode.unavailable.rawValue)
} catch let error as SocketError {
    Terminal.error("water-server: \(error); is another server using that port?")
    exit(ExitCode.unavailable.rawValue)
} catch let error as DomainError {
    Terminal.error("water-server: \(error.field.map { "\($0) " } ?? "")\(error.message)")
    exit(ExitCode.dataError.rawValue)
} catch {
    Terminal.error("water-server: \(error)")
    exit(ExitCode.failure.rawValue)
}
