import CBuildTime
import CLinux
import Dispatch
import Glibc
import WaterCLI
import WaterCore
import WaterHome
import WaterLog
import WaterProtocol
import WaterServer
import WaterStore
import WaterTransport
import WaterZoneInfo

/// SIGTERM and SIGINT, which make `serve` stop gracefully. For `serve` they are blocked first
/// thing, before any thread exists (every thread inherits the mask), so one that arrives early
/// stays pending until the thread that waits for them takes it. With SIG_IGN and Dispatch signal
/// sources, a SIGTERM right after "listening on" could be discarded before the source took over,
/// and the server never stopped (a test saw it).
let servingSignals: sigset_t = {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTERM)
    sigaddset(&signals, SIGINT)
    return signals
}()
if CommandLine.arguments.dropFirst().first == "serve" {
    var blocked = servingSignals
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
}

/// The household's zone: the option, else this machine's.
func householdTimeZone(_ option: String?) throws(UsageError) -> MemberTimeZone {
    guard let option else { return ZoneInfo.system.local() }
    guard let zone = ZoneInfo.system.zone(named: option) else {
        let near = Suggestion.closestZone(to: option, among: ZoneInfo.system.names()) ?? "Europe/Berlin"
        throw UsageError("--time-zone \(option) is not a time zone this system knows (did you mean \(near)?)")
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

func serve(_ arguments: inout Arguments) throws -> Never {
    // What a long run keeps in memory stays near what a restart on the same data holds.
    _ = CLinux_keep_large_allocations_apart()
    var configuration = ServerConfiguration(dataDirectory: try requireData(&arguments))
    if let listen = try arguments.option("listen") {
        guard let address = HostPort(parsing: listen, defaultPort: WireProtocol.defaultPort) else {
            throw UsageError("--listen must be HOST:PORT, got \(listen)")
        }
        configuration.listen = address
    }
    configuration.householdTimeZone = try householdTimeZone(try arguments.option("time-zone"))
    let certificate = try arguments.option("tls-cert")
    let key = try arguments.option("tls-key")
    switch (arguments.flag("plaintext"), certificate, key) {
    case (true, nil, nil):
        do {
            configuration.listen = try configuration.listen.plaintextListenAddress()
        } catch {
            throw UsageError(error.description)
        }
        configuration.tls = nil
    case (true, _, _): throw UsageError("--plaintext turns TLS off; it cannot go with --tls-cert or --tls-key")
    case (false, let certificate?, let key?): configuration.tls = ServerTLSFiles(certificate: certificate, key: key)
    case (false, nil, nil): break
    case (false, _, _): throw UsageError("--tls-cert and --tls-key go together")
    }
    configuration.maximumConnections =
        try arguments.integer("max-connections", in: 1...100_000) ?? configuration.maximumConnections
    if let perAddress = try arguments.integer("max-per-address", in: 1...100_000) {
        configuration.maximumConnectionsPerAddress = perAddress
    }
    if let unauthenticated = try arguments.integer("max-unauthenticated", in: 1...100_000) {
        configuration.maximumUnauthenticatedConnections = unauthenticated
    }
    if let handshakes = try arguments.integer("max-handshakes", in: 1...100_000) {
        configuration.maximumPendingHandshakes = handshakes
    }
    if let seconds = try arguments.integer("handshake-deadline", in: 1...3600) {
        configuration.handshakeDeadline = .seconds(seconds)
    }
    configuration.maximumCallsInFlight =
        try arguments.integer("max-calls", in: 1...10_000) ?? configuration.maximumCallsInFlight
    configuration.maximumPayloadLength =
        try arguments.integer("max-frame", in: 1024...(64 << 20)) ?? configuration.maximumPayloadLength
    if let seconds = try arguments.integer("frame-deadline", in: 1...3600) {
        configuration.frameDeadline = .seconds(seconds)
    }
    if let seconds = try arguments.integer("idle-timeout", in: 1...86_400) {
        configuration.idleTimeout = .seconds(seconds)
    }
    if let seconds = try arguments.integer("idle-sweep", in: 1...86_400) {
        configuration.idleArchiveSweep = .seconds(seconds)
    }
    configuration.passwordStrength = try strength(try arguments.option("password-strength"))
    if let clock = try arguments.integer("clock", in: Int64(946_684_800_000)...Int64(4_102_444_800_000)) {
        configuration.clockOffsetMilliseconds = clock - UnixTime.nowMilliseconds()
    } else {
        // A stated clock is taken as it is; the system's must have passed this release's build.
        configuration.buildTimeUnixMilliseconds = BuildTime.unixMilliseconds(
            date: String(cString: CBuildTime_date()), time: String(cString: CBuildTime_time()))
    }
    configuration.boardPublishers = try mqttSettings(&arguments).map { [HomePublisher.maker($0)] } ?? []
    try arguments.finish()

    let logger = Logger.standardError()
    ensureDescriptors(for: configuration.maximumConnections, logger: logger)
    let server = try Server(configuration: configuration, logger: logger)
    signal(SIGPIPE, SIG_IGN)
    // SIGTERM and SIGINT stop accepting, let calls in flight finish, flush and exit 0.

    server.start()
    Terminal.print("listening on \(server.boundAddress)")
    DispatchQueue.global().async {
        server.waitUntilStopped(timeout: .seconds(3_600 * 24 * 365))
        exit(ExitCode.ok.rawValue)
    }
    // The main thread waits for SIGTERM and SIGINT, blocked since the start (dispatchMain
    // would unblock them there, and a signal could then end the process before any handler).
    var blocked = servingSignals
    var number: Int32 = 0
    while true {
        if sigwait(&blocked, &number) == 0 { server.beginGracefulShutdown() }
    }
}

func initialize(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    guard let admin = try arguments.option("admin") else { throw UsageError("--admin NAME is required") }
    // Before the password is asked for: a name that cannot be a username is refused at once.
    try AccountBook.checkUsernameForm(admin, field: "admin")
    let fromStandardInput = arguments.flag("password-stdin")
    let zone = try householdTimeZone(try arguments.option("time-zone"))
    let hashing = try strength(try arguments.option("password-strength"))
    let json = arguments.flag("json")
    try arguments.finish()
    let password = try newPassword(prompt: "password for \(admin): ", fromStandardInput: fromStandardInput)
    let account = try AdminCommands.initialize(
        dataDirectory: data, admin: admin, password: password, timeZone: zone,
        strength: hashing, logger: .standardError(minimumLevel: .warning))
    let fingerprint = try ServerTLSFiles.ensureSelfSigned(in: data)
    report(
        json: json,
        InitJSON(dataDirectory: data, admin: account.username, certificate: fingerprint.description)
    ) {
        "created \(data) with admin \(account.username); start it with: water-server serve --data \(data)\n"
            + "the server's certificate is \(fingerprint)\n(members check this once, when water-client login shows it)"
    }
}

/// Prints `object` as one JSON object with --json, else the text for people.
func report(json: Bool, _ object: some Encodable, _ text: () -> String) {
    Terminal.print(json ? JSONOutput.encode(object) : text())
}

/// What `init --json` prints.
struct InitJSON: Encodable {
    var dataDirectory: String
    var admin: String
    var certificate: String
}

/// What `check --json` prints.
struct CheckJSON: Encodable {
    var healthy: Bool
    var damaged: Int
    var inUseBy: String?
    var archives: [DataDirectoryCheck.Report]
    /// What the log has wrong that costs no archive anything.
    var notes: [String]
}

func check(_ arguments: inout Arguments) throws -> ExitCode {
    let data = try requireData(&arguments)
    let json = arguments.flag("json")
    try arguments.finish()
    let user = DataDirectory.user(of: data)
    let reports = try AdminCommands.check(dataDirectory: data)
    let notes = DataDirectoryCheck.logNotes(data)
    let damaged = reports.filter { $0.problem != nil }.count
    if json {
        Terminal.print(
            JSONOutput.encode(
                CheckJSON(healthy: damaged == 0, damaged: damaged, inUseBy: user, archives: reports, notes: notes)))
        return damaged == 0 ? .ok : .failure
    }
    if let user { Terminal.print("in use by \(user): reading beside it") }
    var tornTails: Set<DataDirectoryCheck.TornTail> = []
    for report in reports {
        let path = "\(data)/\(report.archive)"
        if report.archive != DataDirectory.log {
            // Which member's it is: `users/2` alone tells an admin nothing.
            let whose = report.member.map { "\($0)'s archive" }
            let records = "\(report.lastRecord) \(report.lastRecord == 1 ? "record" : "records")"
            Terminal.print(
                report.problem.map { "DAMAGED   \(path)\(whose.map { " (\($0))" } ?? ""): \($0)" }
                    ?? "ok        \(path) (\(whose.map { "\($0), " } ?? "")\(records))")
        }
        for line in report.overCaps {
            Terminal.print(
                "note      \(path): \(line): it loads and is kept whole; writes that would add to it are refused")
        }
        if let tail = report.tornTail, tornTails.insert(tail).inserted {
            let records = tail.records.map { " (\($0) records)" } ?? ""
            let file =
                tail.journal.hasPrefix("\(DataDirectory.log)/") ? "\(data)/\(tail.journal)" : "\(path)/\(tail.journal)"
            Terminal.print(
                "note      \(file) ends in \(tail.bytes) bytes\(records) of a write that never completed: never "
                    + "acknowledged, cut when the server next starts")
        }
    }
    for note in notes { Terminal.print("note      \(data)/\(DataDirectory.log): \(note)") }
    Terminal.print(
        damaged == 0
            ? "all \(reports.filter { $0.archive != DataDirectory.log }.count) archives are healthy"
            : "\(damaged) of \(reports.filter { $0.archive != DataDirectory.log }.count) archives are damaged; the server refuses to change them. "
                + "Take a backup, then stop the server and run: water-server repair --all --data \(data)")
    return damaged == 0 ? .ok : .failure
}

/// What `repair --json` prints: one object per archive looked at.
struct RepairJSON: Encodable {
    var archive: String
    /// Whose archive it is, when the accounts say.
    var member: String?
    var repaired: Bool
    var keptAside: String?
    var kept: [String]
    var dropped: [String]
}

func repair(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    let flags = ["accounts", "household", "all"].filter { arguments.flag($0) }
    let json = arguments.flag("json")
    let name = arguments.positional()
    try arguments.finish()
    let target: AdminCommands.RepairTarget
    switch (name, flags) {
    case (let name?, []): target = .member(username: name)
    case (nil, ["accounts"]): target = .accounts
    case (nil, ["household"]): target = .household
    case (nil, ["all"]): target = .all
    default: throw UsageError("repair takes one of: a member's username, --accounts, --household, --all")
    }
    // Read before the repair: a damaged accounts archive names nobody until it is repaired.
    let names = DataDirectoryCheck.memberNames(data, timeZones: ZoneInfo.system)
    let results = try AdminCommands.repair(dataDirectory: data, target: target, now: UnixTime.nowMilliseconds())
    let objects = results.map { result -> RepairJSON in
        switch result {
        case .healthy(let archive):
            RepairJSON(archive: archive, member: names[archive], repaired: false, keptAside: nil, kept: [], dropped: [])
        case .repaired(let outcome):
            RepairJSON(
                archive: outcome.archive, member: names[outcome.archive], repaired: true,
                keptAside: outcome.keptAside, kept: outcome.kept, dropped: outcome.dropped)
        }
    }
    report(json: json, ["archives": objects]) {
        var lines = results.isEmpty ? ["no archive is damaged; nothing to repair"] : []
        for object in objects {
            let whose = object.member.map { " (\($0)'s archive)" } ?? ""
            guard object.repaired else {
                lines.append("\(data)/\(object.archive)\(whose) is healthy; nothing to repair")
                continue
            }
            lines.append(
                "repaired \(data)/\(object.archive)\(whose); the damaged files are kept in \(object.keptAside ?? "?")")
            lines += object.kept.map { "  kept     \($0)" } + object.dropped.map { "  dropped  \($0)" }
            if object.dropped.isEmpty { lines.append("  dropped  nothing") }
        }
        return lines.joined(separator: "\n")
    }
}

func passwd(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    let fromStandardInput = arguments.flag("password-stdin")
    let hashing = try strength(try arguments.option("password-strength"))
    let json = arguments.flag("json")
    guard let name = arguments.positional() else { throw UsageError("passwd needs the member's username") }
    try arguments.finish()
    let password = try newPassword(prompt: "new password for \(name): ", fromStandardInput: fromStandardInput)
    try AdminCommands.resetPassword(
        dataDirectory: data, username: name, password: password, strength: hashing,
        logger: .standardError(minimumLevel: .warning))
    report(json: json, ["username": name]) { "password of \(name) changed; their sessions have ended" }
}

func status(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    let json = arguments.flag("json")
    try arguments.finish()
    let now = UnixTime.nowMilliseconds()
    let report = try StatusReport.read(dataDirectory: data, now: now)
    Terminal.print(json ? JSONOutput.encode(report) : report.text(now: now))
}

/// What `backup --json` prints.
struct BackupJSON: Encodable {
    var destination: String
    var archives: Int
    var readBack: Int
    /// Archives damaged in the data directory too, copied as they are.
    var damaged: [String]
}

func backup(_ arguments: inout Arguments) throws -> ExitCode {
    let data = try requireData(&arguments)
    guard let destination = try arguments.option("to") else { throw UsageError("--to PATH is required") }
    let json = arguments.flag("json")
    try arguments.finish()
    let archives = try Backup.copy(from: data, to: destination)
    // Prove the copy reads. An archive damaged in the data directory too is copied as it is
    // (that copy is what a repair would want), and said so; any other failure fails the backup.
    // The data directory is read again only when the copy has something to explain.
    let copyProblems = try AdminCommands.check(dataDirectory: destination).filter { $0.problem != nil }
    let damagedHere =
        copyProblems.isEmpty
        ? [] : Set(try AdminCommands.check(dataDirectory: data).filter { $0.problem != nil }.map(\.archive))
    var failed = false
    for report in copyProblems {
        guard let problem = report.problem else { continue }
        if damagedHere.contains(report.archive) {
            Terminal.error(
                "water-server: warning: \(data)/\(report.archive) is damaged (\(problem)); "
                    + "copied as it is. Repair it with water-server repair")
        } else {
            Terminal.error("water-server: the copy of \(report.archive) does not read: \(problem)")
            failed = true
        }
    }
    guard !failed else { return .failure }
    let healthy = archives - damagedHere.count
    report(
        json: json,
        BackupJSON(destination: destination, archives: archives, readBack: healthy, damaged: damagedHere.sorted())
    ) {
        "backed up \(archives) archives of \(data) to \(destination); \(healthy) read back"
            + (damagedHere.isEmpty ? "" : ", \(damagedHere.count) damaged ones copied as they are")
    }
    return .ok
}

/// What `restore --json` prints.
struct RestoreJSON: Encodable {
    var from: String
    var into: String
    /// Where what was replaced is kept, when something was.
    var keptAside: String?
    /// How many of the backup's sessions were ended; absent when they were kept (--keep-sessions,
    /// or --member, which leaves the accounts as they are).
    var sessionsEnded: Int?
}

func restore(_ arguments: inout Arguments) throws {
    let data = try requireData(&arguments)
    guard let backup = try arguments.option("from") else { throw UsageError("--from PATH is required") }
    let force = arguments.flag("force")
    let member = try arguments.option("member")
    let keepSessions = arguments.flag("keep-sessions")
    let json = arguments.flag("json")
    try arguments.finish()
    if let member {
        guard !force else {
            throw UsageError("--member restores one archive and keeps the one it replaces; it takes no --force")
        }
        guard !keepSessions else {
            throw UsageError(
                "--member leaves the accounts, and so every session, as they are; it takes no --keep-sessions")
        }
        let (archive, aside) = try AdminCommands.restoreMember(
            member, from: backup, dataDirectory: data,
            now: UnixTime.nowMilliseconds())
        report(json: json, RestoreJSON(from: backup, into: "\(data)/\(archive)", keptAside: aside)) {
            (aside.map { "the archive that was in \(data)/\(archive) is kept in \($0)\n" } ?? "")
                + "restored \(member)'s archive from \(backup) into \(data)/\(archive)"
        }
        return
    }
    // A running server holds the lock: never pull its directory away from under it.
    if let user = DataDirectory.user(of: data) {
        throw ArchiveError(.locked, "the data directory \(data) is in use by \(user); stop it first")
    }
    let (aside, ended) = try AdminCommands.restore(
        from: backup, into: data, force: force, keepSessions: keepSessions, now: UnixTime.nowMilliseconds(),
        logger: .standardError(minimumLevel: .warning))
    report(json: json, RestoreJSON(from: backup, into: data, keptAside: aside, sessionsEnded: ended)) {
        (aside.map { "the data that was in \(data) is kept in \($0)\n" } ?? "")
            + "restored \(backup) into \(data); start it with: water-server serve --data \(data)\n"
            + (ended.map { "ended the backup's \($0) \($0 == 1 ? "session" : "sessions"): every member logs in again" }
                ?? "kept the backup's sessions (--keep-sessions): any ended since it was taken work again")
    }
}

var arguments = Arguments(CommandLine.arguments.dropFirst())
// Every command but serve takes --json; with it, an error is one JSON object on stderr too.
let json = CommandLine.arguments.contains("--json")
do {
    let command = try serverCommandLine.commandToRun(&arguments, protocolVersion: WireProtocol.version)
    switch command.path[0] {
    case "serve": try serve(&arguments)
    case "init": try initialize(&arguments)
    case "check": exit(try check(&arguments).rawValue)
    case "repair": try repair(&arguments)
    case "passwd": try passwd(&arguments)
    case "status": try status(&arguments)
    case "backup": exit(try backup(&arguments).rawValue)
    case "restore": try restore(&arguments)
    case "completion": try serverCommandLine.printCompletion(&arguments)
    case "manpage": try serverCommandLine.printManualPage(&arguments)
    case let other: preconditionFailure("\(other) is in serverCommandLine but has no code")
    }
} catch {
    exit(ErrorJSON(serverError: error).print(program: "water-server", json: json).rawValue)
}

extension ErrorJSON {
    /// How a failure ends `water-server`: a busy, missing or empty data directory or a busy port
    /// is 69 (systemd tries again: the disk may be mounted by then), a domain rule 65.
    init(serverError error: any Error) {
        switch error {
        case let error as UsageError:
            self.init(code: "USAGE", exitCode: .usage, message: error.message)
        case let error as MQTTError:
            // A broker setting libmosquitto refuses (a CA file that is no PEM): the command line's.
            self.init(code: "USAGE", exitCode: .usage, message: "--mqtt: \(error)")
        case let error as ArchiveError where error.code == .locked || error.code == .notADataDirectory:
            self.init(code: "UNAVAILABLE", exitCode: .unavailable, message: error.message)
        case let error as SocketError:
            // A hint only where it is the likely cause: a name that does not resolve, or an
            // address this machine does not have, is not a busy port.
            let hint =
                switch error.errno {
                case EADDRINUSE: "; is another server using that port?"
                case EADDRNOTAVAIL: "; is that address one of this machine's? (0.0.0.0 listens on all of them)"
                default: ""
                }
            self.init(code: "UNAVAILABLE", exitCode: .unavailable, message: "\(error)\(hint)")
        case let error as DomainError:
            let code =
                switch error.kind {
                case .invalid: "INVALID_ARGUMENT"
                case .notFound: "NOT_FOUND"
                case .conflict: "ALREADY_EXISTS"
                case .full: "FAILED_PRECONDITION"
                }
            self.init(
                code: code, exitCode: .dataError, message: error.message,
                violations: error.field.map { [Violation(field: $0, description: error.message)] } ?? [])
        default:
            self.init(code: "FAILURE", exitCode: .failure, message: "\(error)")
        }
    }
}

/// Descriptors the server needs: one per connection, and some 64 for its own files (the log,
/// snapshots, a backup, the loop). Raises the soft limit that far when the hard limit allows
/// (as nginx's `worker_rlimit_nofile`, Redis's `maxclients` check); otherwise says so once:
/// accept would fail (and back off) before `--max-connections` is reached.
func ensureDescriptors(for connections: Int, logger: Logger) {
    let needed = rlim_t(connections + 64)
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < needed else { return }
    let raised = min(needed, limit.rlim_max)
    var wanted = rlimit(rlim_cur: raised, rlim_max: limit.rlim_max)
    if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0, raised >= needed { return }
    logger.warning(
        "the descriptor limit is below what --max-connections needs; raise LimitNOFILE (or ulimit -n)",
        ["limit": "\(raised)", "needed": "\(needed)", "max_connections": "\(connections)"])
}

/// A new password, from standard input (`--password-stdin`) or typed twice at the terminal.
func newPassword(prompt: String, fromStandardInput: Bool) throws -> String {
    guard
        let password = try Terminal.password(
            fromStandardInput: fromStandardInput, prompt: prompt, confirm: !fromStandardInput)
    else { throw AdminCommands.Failure(description: "no password given") }
    return password
}
