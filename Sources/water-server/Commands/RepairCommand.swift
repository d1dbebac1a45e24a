import WaterCLI
import WaterCore
import WaterServer
import WaterStore
import WaterZoneInfo

/// `repair`: rebuilds damaged archives from what still verifies.
enum RepairCommand: ServerCommand {
    static let spec = CommandSpec(
        "repair", "[NAME]", summary: "rebuild damaged archives from what still verifies (server stopped)",
        details: """
            Rebuilds a member's damaged archive (or --accounts, --household, --all) from what still
            verifies; the originals are kept beside them. The server must be stopped.
            """,
        options: [
            dataOption,
            OptionSpec("accounts", nil, "the accounts archive"),
            OptionSpec("household", nil, "the household's archive (the todo list)"),
            OptionSpec("all", nil, "every damaged archive"),
            jsonOption,
        ],
        examples: ["repair --all --data /var/lib/water", "repair ben --data /var/lib/water"])

    static func run(_ arguments: inout Arguments) throws {
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
                RepairJSON(
                    archive: archive, member: names[archive], repaired: false, keptAside: nil, kept: [], dropped: [])
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
                    "repaired \(data)/\(object.archive)\(whose); the damaged files are kept in \(object.keptAside ?? "?")"
                )
                lines += object.kept.map { "  kept     \($0)" } + object.dropped.map { "  dropped  \($0)" }
                if object.dropped.isEmpty { lines.append("  dropped  nothing") }
            }
            return lines.joined(separator: "\n")
        }
    }
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
