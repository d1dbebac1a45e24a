import Glibc
import WaterCore
import WaterTLS

/// The client's files under `$XDG_CONFIG_HOME/water/` (else `~/.config/water/`), directory
/// 0700 and files 0600: a session (server, username, token) per server, which server commands go
/// to by default, and the installation id that goes into the ids of new entries.
///
/// A token only ever goes to the server that issued it: each server's session is its own file,
/// `sessions/<HOST:PORT>`, read only for that server. A `session` file from before (one login
/// for the computer) is read as the session of the server it names, and goes when that server's
/// session is next saved or removed.
public struct ClientFiles: Sendable {
    public let directory: String

    public init(environment: [String: String]) {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "\(environment["HOME"] ?? ".")/.config"
        directory = "\(base)/water"
    }

    /// `$XDG_STATE_HOME/water` (else `~/.local/state/water`): what this computer keeps between
    /// commands that is not configuration (the outbox, what `prompt` shows).
    public static func stateDirectory(environment: [String: String]) -> String {
        let base =
            environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "\(environment["HOME"] ?? ".")/.local/state"
        return "\(base)/water"
    }

    /// What this computer keeps of one server (`HOST:PORT`) between commands: its status cache
    /// and what `prompt` shows, in `servers/<HOST:PORT>` of ``stateDirectory(environment:)``, so
    /// that nothing one server said is ever shown as another's.
    public static func stateDirectory(environment: [String: String], server: String) -> String {
        stateDirectory(environment: environment) + "/servers/" + pathComponent(server)
    }

    /// A saved login.
    public struct Session: Equatable, Sendable {
        public var server: String
        public var username: String
        public var token: [UInt8]
        /// The IANA zone the member's days follow, as the server last said; times typed and
        /// shown are in it. Nil in a session saved before it was kept.
        public var timeZone: String?

        public init(server: String, username: String, token: [UInt8], timeZone: String? = nil) {
            self.server = server
            self.username = username
            self.token = token
            self.timeZone = timeZone
        }
    }

    /// The session for `server` (`HOST:PORT`), if this computer has one.
    public func loadSession(for server: String) -> Session? {
        if let session = Self.session(read(Self.sessionFile(for: server))), session.server == server { return session }
        guard let legacy = legacySession(), legacy.server == server else { return nil }
        return legacy
    }

    /// Keeps `session` as its server's.
    public func saveSession(_ session: Session) throws(WaterClientError) {
        try write(
            Self.sessionFile(for: session.server),
            "server \(session.server)\nusername \(session.username)\ntoken \(Self.hex(session.token))\n"
                + (session.timeZone.map { "time_zone \($0)\n" } ?? ""))
        // The one-login file of before is this server's: from now on its own file says it all,
        // and the default server (which that file named) is kept.
        if let legacy = legacySession(), legacy.server == session.server {
            if read("server") == nil { try saveDefaultServer(legacy.server) }
            unlink("\(directory)/session")
        }
    }

    /// Forgets the session for `server`.
    public func removeSession(for server: String) {
        unlink("\(directory)/\(Self.sessionFile(for: server))")
        if let legacy = legacySession(), legacy.server == server { unlink("\(directory)/session") }
    }

    /// The server commands go to when neither `--server` nor `WATER_SERVER` names one: the one
    /// logged in to last (or the one the one-login file of before names).
    public func defaultServer() -> String? {
        if let text = read("server") {
            let server = text.filter { !$0.isWhitespace }
            if !server.isEmpty { return server }
        }
        return legacySession()?.server
    }

    /// Makes `server` the default, as a login does.
    public func saveDefaultServer(_ server: String) throws(WaterClientError) {
        try write("server", server + "\n")
    }

    /// The one session file this client kept before sessions were per server.
    private func legacySession() -> Session? {
        Self.session(read("session"))
    }

    /// `sessions/` and the server's `HOST:PORT` with every byte but letters, digits and `.:_-`
    /// written `%XX`: a name a person typed never becomes a path of its own (`..`, `/`).
    static func sessionFile(for server: String) -> String {
        "sessions/" + pathComponent(server)
    }

    /// `text` as one file name: letters, digits and `.:_-` as they are, every other byte `%XX`.
    /// It never is `.` or `..`: servers are `HOST:PORT`.
    public static func pathComponent(_ text: String) -> String {
        var name = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                name.append(Character(Unicode.Scalar(byte)))
            default:
                name += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return name
    }

    private static func session(_ text: String?) -> Session? {
        guard let text else { return nil }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let server = fields["server"], let username = fields["username"], let hex = fields["token"],
            let token = Self.bytes(hex: hex)
        else { return nil }
        return Session(server: server, username: username, token: token, timeZone: fields["time_zone"])
    }

    /// How this computer knows the server at `server` (`HOST:PORT`), as the first login
    /// settled it, like ssh's known_hosts: its certificate's fingerprint, or that the system's
    /// CAs vouch for it. Nil when it has not met that server.
    public func trust(of server: String) -> ClientConfiguration.Security? {
        for line in (read("known_servers") ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, parts[0] == server else { continue }
            if parts[1] == "ca" { return .certificateAuthorities }
            if let fingerprint = Fingerprint(String(parts[1])) { return .pinned(fingerprint) }
        }
        return nil
    }

    /// Remembers how `server` is trusted (replacing what was known of it).
    public func saveTrust(_ trust: ClientConfiguration.Security, of server: String) throws(WaterClientError) {
        let value: String
        switch trust {
        case .pinned(let fingerprint?): value = fingerprint.description
        case .certificateAuthorities: value = "ca"
        case .pinned(nil), .plaintext: return
        }
        let others = (read("known_servers") ?? "").split(separator: "\n").filter { !$0.hasPrefix("\(server) ") }
        try write("known_servers", (others.map(String.init) + ["\(server) \(value)"]).joined(separator: "\n") + "\n")
    }

    /// A TLS session to offer `server` for resumption (saved by ``saveTLSSession(_:for:)``).
    public func tlsSession(for server: String) -> [UInt8]? {
        guard let text = read("tls-session") else { return nil }
        let parts = text.split(separator: " ")
        guard parts.count == 2, parts[0] == server else { return nil }
        return Self.bytes(hex: String(parts[1].filter { !$0.isWhitespace }))
    }

    /// Keeps the TLS session of the last connection, so that the next command resumes it.
    public func saveTLSSession(_ session: [UInt8], for server: String) {
        try? write("tls-session", "\(server) \(Self.hex(session))\n")
    }

    /// The day (`YYYY-MM-DD`, this computer's) this computer last warned that its clock and
    /// `server`'s differ.
    public func clockWarningDay(for server: String) -> String? {
        guard let text = read("clock-warned") else { return nil }
        let parts = text.split(separator: " ")
        return parts.count == 2 && parts[0] == server ? String(parts[1].filter { !$0.isWhitespace }) : nil
    }

    /// Remembers that the clock warning was given today for `server`.
    public func saveClockWarningDay(_ day: String, for server: String) {
        try? write("clock-warned", "\(server) \(day)\n")
    }

    /// A time-ordered id for a record made at `now` on this computer, never one another process
    /// here made: each `water-client` is a process of its own, so an in-memory counter starts
    /// again in each, and two terminals logging in the same millisecond would make the same id
    /// (the server then takes the second drink for a replay of the first, or refuses it). They
    /// take turns on a lock instead; the file holds the last id's millisecond and counter, and
    /// the next id takes the counter after it in that millisecond (or the next millisecond when
    /// the clock has not moved on).
    public func newRecordID(at now: Int64) -> RecordID {
        let path = "\(directory)/last-id"
        return LocalFile.withLock(path + ".lock") {
            var (millisecond, counter) = (now, UInt16(0))
            let last = (LocalFile.readText(path) ?? "").split(separator: " ").compactMap {
                Int64($0.filter(\.isNumber))
            }
            // A last id from no more than a minute ahead (a clock set back a little) still
            // orders the next; one from further ahead is a clock that was wrong, and is ignored.
            if last.count == 2, last[0] >= now, last[0] <= now + 60_000, (0...0x0FFF).contains(last[1]) {
                (millisecond, counter) = last[1] == 0x0FFF ? (last[0] + 1, 0) : (last[0], UInt16(last[1] + 1))
            }
            try? LocalFile.writeText(path, "\(millisecond) \(counter)\n", syncing: false)
            return .timeOrdered(unixMilliseconds: millisecond, counter: counter, installation: installationID())
        }
    }

    /// This installation's random id, made on first use.
    public func installationID() -> UInt64 {
        if let text = read("installation"), let id = UInt64(text.filter { !$0.isWhitespace }, radix: 16) { return id }
        let id = UInt64.random(in: 0...UInt64.max) & 0x3FFF_FFFF_FFFF_FFFF
        try? write("installation", String(id, radix: 16) + "\n")
        return id
    }

    private func read(_ name: String) -> String? {
        LocalFile.read("\(directory)/\(name)").map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes atomically and durably, 0600, in a 0700 directory.
    private func write(_ name: String, _ text: String) throws(WaterClientError) {
        try LocalFile.writeDurably("\(directory)/\(name)", Array(text.utf8))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        return stride(from: 0, to: characters.count, by: 2).map { index -> UInt8? in
            UInt8(String(decoding: characters[index..<(index + 2)], as: UTF8.self), radix: 16)
        }.reduce(into: [UInt8]?([])) { result, byte in
            guard let byte, result != nil else { result = nil; return }
            result!.append(byte)
        }
    }
}

/// A local failure of the client (its files), as opposed to an error from the server.
public struct WaterClientError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
