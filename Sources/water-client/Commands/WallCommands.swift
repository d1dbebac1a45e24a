import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol
import WaterTransport

/// `wall link|ls|revoke` (admins): read-only links to the kitchen wall, the board page that
/// `water-server serve --wall` serves.
enum WallCommands {
    enum Link: ClientCommand {
        static let spec = CommandSpec(
            "wall link", summary: "make a read-only link to the kitchen wall (admins)",
            details: """
                Makes a link that opens the week's board as a web page on the server's wall port
                (water-server serve --wall): for a tablet on the fridge. Anyone with the link sees the
                board as no member does (hidden members absent, percent members without millilitres),
                and nothing else. The link is shown once; the server keeps only its digest. wall revoke
                ID ends it.
                """,
            options: [OptionSpec("label", "TEXT", "what the link is for (kitchen tablet), at most 64 bytes")],
            examples: ["wall link --label \"kitchen tablet\""])

        static func run(_ invocation: inout Invocation) throws {
            let label = try invocation.arguments.option("label") ?? ""
            try invocation.arguments.finish()
            let server = try invocation.server()
            let response = try invocation.client().call(WaterV1.CreateWallLinkRequest(label: label))
            invocation.output(response) {
                let id = response.link?.id.terminalSafe ?? ""
                guard !response.wallScheme.isEmpty, let port = UInt16(exactly: response.wallPort) else {
                    return """
                        wall link \(id): \(response.path.terminalSafe) on the wall's port, but this server serves no wall
                        (water-server serve --wall HOST:PORT serves it; shown once: wall revoke \(id) ends it)
                        """
                }
                // The server says how it serves the wall; the host is the one this client reached it by.
                let address = HostPort(host: server.host, port: port)
                return """
                    wall link \(id): open \(response.wallScheme.terminalSafe)://\(address.description.terminalSafe)\(response.path.terminalSafe)
                    (shown once: wall revoke \(id) ends it)
                    """
            }
        }
    }

    enum List: ClientCommand {
        static let spec = CommandSpec(
            "wall ls", summary: "the kitchen wall's links (admins)",
            details: "Lists the wall's links, oldest first: their id, when and by whom each was made, its label.",
            examples: ["wall ls"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let response = try invocation.client().call(WaterV1.ListWallLinksRequest())
            invocation.output(response) {
                guard !response.links.isEmpty else { return "no wall links: wall link makes one" }
                return response.links.map { link in
                    let day = LocalDate(daysSinceEpoch: Int(link.madeAtUnixMs / 86_400_000))
                    let maker = link.madeBy.isEmpty ? "a removed member" : link.madeBy.terminalSafe
                    return "\(link.id.terminalSafe)  \(day)  by \(maker)  \(link.label.terminalSafe)"
                }.joined(separator: "\n")
            }
        }
    }

    enum Revoke: ClientCommand {
        static let spec = CommandSpec(
            "wall revoke", "ID", summary: "end a kitchen wall link (admins)",
            details: "Ends a wall link: its page answers 404 and its live stream closes within 15 s.",
            examples: ["wall revoke 3f2a9c01d4e5b6a7"])

        static func run(_ invocation: inout Invocation) throws {
            let id = try invocation.arguments.onlyPositional(missing: "wall revoke needs a link's id (wall ls)")
            let response = try invocation.client().call(WaterV1.RevokeWallLinkRequest(id: id))
            invocation.output(response) { "revoked wall link \(id.terminalSafe)" }
        }
    }
}
