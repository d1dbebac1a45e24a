import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterTLS

/// `login [NAME]`, `logout`, `whoami`, `passwd`.
enum SessionCommands {
    enum Login: ClientCommand {
        static let spec = CommandSpec(
            "login", "[NAME]", summary: "log in (the session is kept in ~/.config/water, 0600)",
            details: """
                Logs in; the password is asked for without echo, or read from standard input.
                The first login to a server pins its certificate, as ssh does: it shows the fingerprint
                and asks, or --fingerprint pins the one `water-server status` shows on the server
                without asking. A server whose certificate the system's CAs vouch for needs no pin.
                A changed certificate is refused. Each server keeps its own session: logging in to
                another keeps this one, and commands without --server then go to the new one.
                """,
            options: [
                OptionSpec("password-stdin", nil, "read the password from the first line of standard input"),
                OptionSpec("fingerprint", "SHA256:...", "trust the server with this certificate without asking"),
            ],
            examples: ["login ann", "--server pi.local:7420 login ann --fingerprint SHA256:..."])

        static func run(_ invocation: inout Invocation) throws {
            let fromStandardInput = invocation.arguments.flag("password-stdin")
            let fingerprint = try invocation.arguments.option("fingerprint").map { (text) throws(UsageError) in
                guard let parsed = Fingerprint(text) else {
                    throw UsageError("--fingerprint must be SHA256: and 43 characters, as water-server status shows it")
                }
                return parsed
            }
            let name = invocation.arguments.positional() ?? invocation.session()?.username
            try invocation.arguments.finish()
            // Standard input holds the password: the name cannot be asked for there too.
            if name == nil && fromStandardInput {
                throw UsageError("login --password-stdin needs NAME: water-client login NAME --password-stdin")
            }
            guard let username = try name ?? Terminal.password(fromStandardInput: false, prompt: "username: ") else {
                throw UsageError("login needs a username")
            }
            // Before the password is asked for: a name that only its capitals keep from being one.
            if !AccountBook.isValidUsername(username), AccountBook.isValidUsername(username.lowercased()) {
                throw UsageError("usernames are lowercase: water-client login \(username.lowercased())")
            }
            // The server first (and its certificate's question, on a first login): a password is
            // typed only for a server that is there and trusted.
            let (client, trust) = try invocation.anonymousClient(fingerprint: fingerprint)
            guard
                let password = try Terminal.password(
                    fromStandardInput: fromStandardInput, prompt: "password for \(username): ")
            else {
                throw UsageError("no password given")
            }
            // One longer than any password can be would not fit the frame the server reads before login.
            try checkLength(password)
            let response = try client.login(username: username, password: password)
            invocation.warnIfClocksDiffer(client)
            let server = try invocation.server().description
            try invocation.files.saveTrust(trust, of: server)
            try invocation.saveSession(
                ClientFiles.Session(
                    server: server, username: username, token: response.authToken, timeZone: response.member?.timeZone))
            // Commands without --server or WATER_SERVER go where the last login went.
            try invocation.files.saveDefaultServer(server)
            // Writes that waited for this login (the session had expired) go now, and what prompt
            // shows is this member's from now on.
            invocation.sendQueued(client).tell(invocation)
            // The household's drinks, for a log away from the server to check a drink's name
            // against from the first day (a server from before drinks has none: then it decides).
            let drinks = (try? client.call(WaterV1.ListDrinksRequest()))?.drinks ?? []
            invocation.updateCache { cache in if !drinks.isEmpty { cache.drinks = drinks } }
            invocation.output(response.member ?? WaterV1.Member()) {
                "logged in as \(username) on \(server)"
            }
        }
    }

    /// Refuses (65) a password longer than any the server keeps, before it is sent: at login,
    /// where it would not fit the frame the server reads first, and wherever one is set.
    static func checkLength(_ password: String) throws {
        do {
            try AccountBook.checkPasswordLength(password, field: "password")
        } catch {
            throw WaterError(error)
        }
    }

    enum Logout: ClientCommand {
        static let spec = CommandSpec(
            "logout", summary: "end this session on the server and forget it here",
            options: [
                OptionSpec("local", nil, "only forget it here, without the server (it still works there)")
            ],
            examples: ["logout", "logout --local"])

        static func run(_ invocation: inout Invocation) throws {
            let local = invocation.arguments.flag("local")
            try invocation.arguments.finish()
            guard invocation.session() != nil else {
                // Already where the command leads: that is success, with a word about it.
                return invocation.output(WaterV1.LogoutResponse()) {
                    "not logged in to \((try? invocation.server().description) ?? "that server"); nothing to do"
                }
            }
            if local {
                invocation.removeSession()
                return invocation.output(WaterV1.LogoutResponse()) {
                    "forgot the session on this computer; it still works on the server until your password changes"
                }
            }
            let client: WaterClient
            do {
                client = try invocation.client()
            } catch let error as WaterError where error.code == .unavailable {
                throw WaterError(
                    .unavailable,
                    "\(error.message); the session is kept (water-client logout --local forgets it here only)"
                )
            }
            let response = try? client.call(WaterV1.LogoutRequest())
            invocation.removeSession()
            invocation.output(response ?? WaterV1.LogoutResponse()) { "logged out" }
        }
    }

    enum WhoAmI: ClientCommand {
        static let spec = CommandSpec(
            "whoami", summary: "show who you are logged in as, and what others see of you",
            examples: ["whoami"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.WhoAmIRequest())
            let server = try invocation.server().description
            invocation.output(response) {
                let member = response.member ?? WaterV1.Member()
                let role = (member.child ? "child " : "") + (member.role == .admin ? "admin" : "member")
                let guardians =
                    member.guardians.isEmpty ? "" : " (guardians: \(member.guardians.joined(separator: ", ")))"
                return
                    "\(member.username) (\(member.displayName)), \(role)\(guardians), \(member.timeZone), on \(server)"
                    .terminalSafe + "\n" + PrivacyCommand.line(response.privacy)
            }
        }
    }

    enum Passwd: ClientCommand {
        static let spec = CommandSpec(
            "passwd", summary: "change your password (your other sessions end)",
            details: """
                Changes your password; your other sessions end. With --password-stdin: the current
                password, then the new one, one per line.
                """,
            options: [OptionSpec("password-stdin", nil, "read both passwords from standard input")],
            examples: ["passwd"])

        static func run(_ invocation: inout Invocation) throws {
            let fromStandardInput = invocation.arguments.flag("password-stdin")
            try invocation.arguments.finish()
            // With --password-stdin: the current password on the first line, the new one on the second.
            guard
                let current = try Terminal.password(fromStandardInput: fromStandardInput, prompt: "current password: "),
                let new = try Terminal.password(
                    fromStandardInput: fromStandardInput, prompt: "new password: ", confirm: !fromStandardInput)
            else { throw UsageError("no password given") }
            try checkLength(new)
            guard var session = invocation.session() else {
                throw invocation.notLoggedIn()
            }
            let response = try invocation.client().call(
                WaterV1.ChangePasswordRequest(currentPassword: current, newPassword: new))
            session.token = response.authToken
            try invocation.saveSession(session)
            invocation.output(WaterV1.ChangePasswordResponse(expiresAtUnixMs: response.expiresAtUnixMs)) {
                "password changed; your other sessions have ended"
            }
        }
    }
}
