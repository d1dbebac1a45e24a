import WaterCLI
import WaterCore
import WaterServer

/// `status`: what the running (or last) server wrote to DIR/status.
enum StatusCommand: ServerCommand {
    static let spec = CommandSpec(
        "status", summary: "uptime, connections, members, archive sizes, compactions, certificate",
        options: [
            dataOption,
            jsonOption,
        ],
        examples: ["status --data /var/lib/water", "status --data /var/lib/water --json"])

    static func run(_ arguments: inout Arguments) throws {
        let data = try requireData(&arguments)
        let json = arguments.flag("json")
        try arguments.finish()
        let now = UnixTime.nowMilliseconds()
        let report = try StatusReport.read(dataDirectory: data, now: now)
        Terminal.print(json ? JSONOutput.encode(report) : report.text(now: now))
    }
}
