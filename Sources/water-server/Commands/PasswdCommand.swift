import WaterCLI
import WaterServer

/// `passwd`: sets a member's password, the server stopped.
enum PasswdCommand: ServerCommand {
    static let spec = CommandSpec(
        "passwd", "NAME", summary: "set a member's password (server stopped)",
        options: [dataOption] + newPasswordOptions + [jsonOption],
        examples: ["passwd ben --data /var/lib/water"])

    static func run(_ arguments: inout Arguments) throws {
        let data = try requireData(&arguments)
        let newPassword = try NewPassword(&arguments)
        let json = arguments.flag("json")
        let name = try arguments.onlyPositional(missing: "passwd needs the member's username")
        let password = try newPassword.read(prompt: "new password for \(name): ")
        try AdminCommands.resetPassword(
            dataDirectory: data, username: name, password: password, strength: newPassword.hashing,
            logger: .standardError(minimumLevel: .warning))
        report(json: json, ["username": name]) { "password of \(name) changed; their sessions have ended" }
    }
}
