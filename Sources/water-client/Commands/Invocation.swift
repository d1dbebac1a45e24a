import FoundationEssentials
import Glibc
import WaterCLI
import WaterClient
import WaterCodec
import WaterCore
import WaterProtocol
import WaterTLS
import WaterTransport
import WaterZoneInfo

/// One run of `water-client`: the parsed global options, the server, its saved session and the
/// output.
struct Invocation {
    var arguments: Arguments
    let json: Bool
    let serverOption: String?
    let environment: [String: String]
    let files: ClientFiles
    /// --plaintext or WATER_PLAINTEXT=1: no TLS, for a server on this machine (insecure).
    let plaintext: Bool
    /// The connections this run made, whose TLS session the next run resumes.
    let made = MadeConnections()
    /// The saved login, read once per run (every step of a command asks for it).
    private let loaded = LoadedSession()

    /// The saved login for this run's server, if any: never another server's, whose token must
    /// not go anywhere else.
    func session() -> ClientFiles.Session? {
        if let known = loaded.session { return known }
        loaded.session = (try? server()).flatMap { files.loadSession(for: $0.description) }
        return loaded.session ?? nil
    }

    func saveSession(_ session: ClientFiles.Session) throws(WaterClientError) {
        try files.saveSession(session)
        loaded.session = session
    }

    func removeSession() {
        guard let server = try? server() else { return }
        files.removeSession(for: server.description)
        loaded.session = .some(nil)
    }

    /// The server to talk to: --server, else WATER_SERVER, else the one logged in to last, else
    /// local.
    func server() throws(UsageError) -> HostPort {
        guard
            let server = ClientConfiguration.resolveServer(
                option: serverOption, environment: environment, saved: files.defaultServer())
        else {
            let text = serverOption ?? environment[ClientConfiguration.serverEnvironmentVariable] ?? ""
            throw UsageError("the server must be HOST:PORT, got \(text)")
        }
        return server
    }

    /// How to reach the server, trusted as this computer's first login settled.
    func configuration() throws -> ClientConfiguration {
        let server = try server()
        var configuration = Self.configuration(of: server)
        if plaintext {
            configuration.security = .plaintext
        } else if let trust = files.trust(of: server.description) {
            configuration.security = trust
            // Resuming the last TLS session saves nothing measurable here (scripts/bench server
            // compares both: a full TLS 1.3 handshake costs little beside starting the
            // process), so it is only on with WATER_TLS_RESUME=1.
            if resumesTLS {
                configuration.tlsSessionToResume = files.tlsSession(for: server.description)
            }
        } else {
            throw WaterError(
                .failedPrecondition,
                "this computer does not know the certificate of the server at \(server) yet: run water-client login")
        }
        return configuration
    }

    /// A connected client with no login, for `login`, and how the server came to be trusted:
    /// `--fingerprint`, what this computer already knew, the system's CAs, or the person at the
    /// terminal shown its fingerprint, as ssh does on first contact.
    func anonymousClient(fingerprint: Fingerprint?) throws -> (WaterClient, ClientConfiguration.Security) {
        let server = try server()
        var configuration = Self.configuration(of: server)
        let known = plaintext ? .plaintext : fingerprint.map { .pinned($0) } ?? files.trust(of: server.description)
        if let known {
            configuration.security = known
            if fingerprint != nil { configuration.pinOrigin = .given }
            return (try WaterClient(configuration: configuration, installation: files.installationID()), known)
        }
        // A first meeting. A certificate the system's CAs vouch for for this name needs no pin.
        configuration.security = .certificateAuthorities
        if let client = try? WaterClient(configuration: configuration, installation: files.installationID()) {
            return (client, .certificateAuthorities)
        }
        configuration.security = .pinned(nil)
        let client = try WaterClient(configuration: configuration, installation: files.installationID())
        guard let seen = client.connection.serverFingerprint else {
            throw WaterError(.unavailable, "the server at \(server) presented no certificate")
        }
        let question = """
            The server at \(server) presents a certificate this computer has not seen:
              \(seen)
            Check that it is the one `water-server status` shows on the server. Trust it? [y/N]\u{20}
            """
        switch Terminal.confirm(question) {
        case true?: return (client, .pinned(seen))
        case false?: throw WaterError(.permissionDenied, "the server's certificate was not trusted; nothing was sent")
        case nil:
            throw WaterError(
                .permissionDenied,
                "the server at \(server) presents the certificate \(seen), which this computer has not pinned, and "
                    + "there is no terminal to ask: check it with water-server status on the server, then log in "
                    + "with --fingerprint \(seen)")
        }
    }

    /// A connected client with the saved login, which has first sent what the outbox held
    /// (every command sends what was saved while the server was away before it does its own).
    func client() throws -> WaterClient {
        let client = try connect()
        sendQueued(client).tell(self)
        return client
    }

    /// A connected client with the saved login, the outbox left as it is.
    func connect() throws -> WaterClient {
        guard let session = session() else { throw notLoggedIn() }
        let client = try WaterClient(
            configuration: try configuration(), token: session.token, installation: files.installationID())
        made.connections.append(client.connection)
        warnIfClocksDiffer(client)
        return client
    }

    /// Once a day, on stderr: this computer's clock and the server's differ by more than the
    /// skew a drink's time may have, so one of them logs drinks on the wrong day or is refused.
    func warnIfClocksDiffer(_ client: WaterClient) {
        let (serverTime, server) = (client.connection.server.serverTimeUnixMs, client.connection.configuration.server)
        let now = UnixTime.nowMilliseconds()
        guard serverTime > 0, abs(serverTime - now) > WaterDiary.allowedClockSkewMilliseconds else { return }
        let zone = session()?.timeZone.flatMap(ZoneInfo.system.zone(named:)) ?? Self.localZone
        let today = zone.date(atUnixMilliseconds: now).description
        guard files.clockWarningDay(for: server.description) != today else { return }
        files.saveClockWarningDay(today, for: server.description)
        func moment(_ time: Int64) -> String {
            "\(zone.date(atUnixMilliseconds: time)) \(Format.clock(time, zone: zone))"
        }
        Terminal.error(
            "warning: this computer's clock says \(moment(now)) and the server at \(server)'s says \(moment(serverTime)) "
                + "(\(zone.identifier)); drinks are dated by the server's: set the one that is wrong (said once a day)")
    }

    /// A new time-ordered id for a record made now, online or not, unique among this
    /// computer's processes (``ClientFiles/newRecordID(at:)``).
    func newID(at now: Int64 = UnixTime.nowMilliseconds()) -> String {
        files.newRecordID(at: now).description
    }

    /// No session for this run's server (a session for another server is never used instead);
    /// the usage error when the server named is not `HOST:PORT`.
    func notLoggedIn() -> any Error {
        let server: HostPort
        do { server = try self.server() } catch { return error }
        let login = serverOption.map { "water-client --server \($0) login" } ?? "water-client login"
        return WaterError(.unauthenticated, "not logged in to \(server): run \(login)")
    }

    /// What every connection of this program starts from: the server, and the name and version
    /// the handshake tells it.
    private static func configuration(of server: HostPort) -> ClientConfiguration {
        var configuration = ClientConfiguration(server: server)
        configuration.clientName = "water-client \(WireProtocol.softwareVersion)"
        return configuration
    }

    private var resumesTLS: Bool { environment["WATER_TLS_RESUME"] == "1" }

    /// Keeps the TLS session of the last connection for the next run to resume.
    func saveTLSSession() {
        guard resumesTLS, let connection = made.connections.last,
            let session = connection.savedTLSSession
        else { return }
        files.saveTLSSession(session, for: connection.configuration.server.description)
    }

    /// Prints `object` as JSON with --json, else the human text (for replies that are not a
    /// proto message).
    func outputText(_ object: some Encodable, human: () -> String) {
        Terminal.print(json ? JSONOutput.encode(object) : human())
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
        JSONOutput.encode(message)
    }

    /// The zone the member's days follow. Times typed (`--at 08:00`, `--day yesterday`,
    /// `--week last`) are read in it and times shown are in it, so `log` and `today` agree
    /// whatever zone the terminal is in. Kept in the session; asked for once when it is not.
    /// With no client (the server cannot be reached), what this computer last knew.
    func memberZone(_ client: WaterClient?) throws -> MemberTimeZone {
        var name = session()?.timeZone
        if name == nil, let client {
            name = try client.call(WaterV1.GetSettingsRequest()).settings?.timeZone
            name.map(rememberZone)
        }
        return name.flatMap(ZoneInfo.system.zone(named:)) ?? Self.localZone
    }

    /// Keeps the member's zone from a reply that carries it (login, today, zone).
    func rememberZone(_ name: String) {
        guard !name.isEmpty, var session = session(), session.timeZone != name else { return }
        session.timeZone = name
        try? saveSession(session)
    }

    /// `--at` as milliseconds since 1970 in `zone`, or 0 (the server's now) when not given.
    static func time(_ option: String?, zone: MemberTimeZone) throws(UsageError) -> Int64 {
        guard let option else { return 0 }
        guard let time = When.parse(option, now: UnixTime.nowMilliseconds(), zone: zone) else {
            throw UsageError("--at must be like 21:30, \"yesterday 21:30\" or 2026-11-30T21:30, got \"\(option)\"")
        }
        return time
    }

    /// `--week` as the API takes it (empty: the current week), `last` the week before the one
    /// `current` says the server is in (``When/week(_:current:)``).
    static func week(_ option: String?, current: () throws -> String) throws -> String {
        guard let week = try When.week(option, current: current) else {
            throw UsageError("--week takes last or a week like 2026-W49, got \(option ?? "")")
        }
        return week
    }

    /// The local time zone of this terminal, for when the member's is unknown here.
    static var localZone: MemberTimeZone {
        ZoneInfo.system.local()
    }
}

/// What one run of `water-client` connected to, for the TLS session the next run resumes.
final class MadeConnections {
    var connections: [WaterConnection] = []
}

/// The login as this run last read or wrote it.
final class LoadedSession {
    /// nil: not read yet; .some(nil): there is none.
    var session: ClientFiles.Session??
}
