import WaterCLI
import WaterCore
import WaterServer
import WaterStore

/// `init`: a new data directory, its certificate and its first admin.
enum InitCommand: ServerCommand {
    static let spec = CommandSpec(
        "init", summary: "create the data directory and its first admin",
        details: """
            Creates the data directory, its TLS certificate and its first admin, whose days follow
            --time-zone (default: this machine's zone; water-client zone changes it later). The
            password is asked for twice, or read from the first line of standard input.
            """,
        options: [
            OptionSpec("data", "DIR", "the data directory to create", required: true),
            OptionSpec("admin", "NAME", "the first admin's username", required: true),
            OptionSpec("time-zone", "ZONE", "the admin's time zone (default: this machine's)"),
        ] + newPasswordOptions + [jsonOption],
        examples: ["init --data /var/lib/water --admin mum --time-zone Europe/Berlin"])

    static func run(_ arguments: inout Arguments) throws {
        let data = try requireData(&arguments)
        guard let admin = try arguments.option("admin") else { throw UsageError("--admin NAME is required") }
        // Before the password is asked for: a name that cannot be a username is refused at once.
        try AccountBook.checkUsernameForm(admin, field: "admin")
        let newPassword = try NewPassword(&arguments)
        let zone = try householdTimeZone(try arguments.option("time-zone"))
        let json = arguments.flag("json")
        try arguments.finish()
        let password = try newPassword.read(prompt: "password for \(admin): ")
        let account = try AdminCommands.initialize(
            dataDirectory: data, admin: admin, password: password, timeZone: zone,
            strength: newPassword.hashing, logger: .standardError(minimumLevel: .warning))
        let fingerprint = try ServerTLSFiles.ensureSelfSigned(in: data)
        report(
            json: json,
            InitJSON(dataDirectory: data, admin: account.username, certificate: fingerprint.description)
        ) {
            "created \(data) with admin \(account.username); start it with: water-server serve --data \(data)\n"
                + "the server's certificate is \(fingerprint)\n(members check this once, when water-client login shows it)"
        }
    }
}

/// What `init --json` prints.
struct InitJSON: Encodable {
    var dataDirectory: String
    var admin: String
    var certificate: String
}
