import WaterCLI
import WaterClient
import WaterCore
import WaterProtocol

/// `sync` sends what waits on this computer; `outbox` shows it, and retries or drops what the
/// server refused.
enum OutboxCommands {
    enum Sync: ClientCommand {
        static let spec = CommandSpec(
            "sync", summary: "send what waits on this computer, and refresh what prompt shows",
            details: """
                Sends the writes kept on this computer while the server could not be reached (every
                other command does this first too), in the order they were made, and says what was
                sent and what the server refused. Then refreshes what prompt shows.
                """,
            options: [OptionSpec("quiet", nil, "say nothing (for prompt's background refresh)")],
            examples: ["sync"])

        static func run(_ invocation: inout Invocation) throws {
            let quiet = invocation.arguments.flag("quiet")
            try invocation.arguments.finish()
            let client = try invocation.connect()
            let report = invocation.sendQueued(client)
            // Sync also refreshes what `prompt` shows.
            let today = try client.call(WaterV1.GetTodayRequest())
            invocation.remember(today)
            // ... and who overtook the member on the board today (prompt's {overtaken}): news, so
            // a board that cannot be had fails nothing.
            if let board = (try? client.call(WaterV1.GetBoardRequest()))?.board {
                invocation.updateCache { $0.record(board: board) }
            }
            printSync(report, quiet: quiet, invocation)
            // A write the server refused is a failure of the command, however it was shown (65).
            if !report.refused.isEmpty { throw ReportedFailure(exitCode: .dataError) }
        }
    }

    private static func printSync(_ report: Outbox.SendReport, quiet: Bool, _ invocation: Invocation) {
        guard !quiet else { return }
        let words = invocation.writeWords()
        if invocation.json {
            return Terminal.print(
                JSONOutput.encode(
                    SyncJSON(
                        sent: report.sent.map { words($0) },
                        refused: report.refused.map { ["write": words($0.0), "reason": $0.1] },
                        damaged: report.damaged, waitingForLogin: report.waitingForLogin)))
        }
        var lines =
            report.sent.isEmpty
            ? ["nothing was waiting to be sent"] : ["sent \(report.sent.count) saved on this computer:"]
        lines += report.sent.map { "  \(words($0))" }
        lines += report.refused.map { "refused: \(words($0.0)): \($0.1.terminalSafe) (water-client outbox)" }
        lines += report.damaged.map { "an outbox file does not read and was kept aside in \($0)" }
        if report.waitingForLogin > 0 { lines.append("\(report.waitingForLogin) wait for water-client login") }
        Terminal.print(lines.joined(separator: "\n"))
    }

    /// `outbox`: what waits to be sent and what the server refused, numbered for retry and drop.
    enum List: ClientCommand {
        static let spec = CommandSpec(
            "outbox", summary: "what waits on this computer to be sent, and what the server refused",
            details: """
                When the server cannot be reached, log, edit, rm, undo, habit check|uncheck and todo
                add|done|undone|skip keep their write on this computer ($XDG_STATE_HOME/water/outbox) and
                exit 0; the next command that reaches the server sends them, once each, with their
                original time. outbox lists them, numbered; a write the server refused stays here
                until you retry or drop it.
                """,
            examples: ["outbox", "--json outbox"])

        static func run(_ invocation: inout Invocation) throws {
            try invocation.arguments.finish()
            let (pending, refused) = (invocation.waitingWrites(), invocation.refusedWrites())
            let words = invocation.writeWords()
            if invocation.json {
                let rows = numbered(pending, refused).map { number, write in
                    OutboxJSON(
                        number: number, kind: write.kind.rawValue, description: words(write),
                        server: write.server, username: write.username, queuedAtUnixMs: write.queuedAtUnixMs,
                        refused: write.refusal)
                }
                return Terminal.print(JSONOutput.encode(["writes": rows]))
            }
            guard !pending.isEmpty || !refused.isEmpty else { return Terminal.print("nothing waits on this computer") }
            var lines: [String] = []
            for (number, write) in numbered(pending, refused) {
                let state = write.refusal.map { "refused: \($0.terminalSafe)" } ?? "not sent yet"
                lines.append("\(Format.pad("\(number).", 3)) \(words(write))  (\(state))")
            }
            if !refused.isEmpty {
                lines.append("water-client outbox retry N puts a refused write back in line; outbox drop N forgets it")
            }
            Terminal.print(lines.joined(separator: "\n"))
        }
    }

    /// `outbox retry N|--all`: refused writes back in line, sent now when the server is there.
    enum Retry: ClientCommand {
        static let spec = CommandSpec(
            "outbox retry", "[N]", summary: "put a refused write back in line (and send it now if it can)",
            options: [OptionSpec("all", nil, "every refused write")], examples: ["outbox retry 1"])

        static func run(_ invocation: inout Invocation) throws {
            let chosen = try choose(&invocation, verb: "retry")
            guard !chosen.isEmpty else {
                return invocation.outputText(["retried": 0, "sent": 0]) {
                    "the server refused nothing: nothing to retry"
                }
            }
            for write in chosen { try invocation.outbox.retry(write) }
            // Sent now when the server can be reached; else with the next command that reaches it.
            let report = (try? invocation.connect()).map { invocation.sendQueued($0) }
            let sent = report?.sent.count ?? 0
            report?.tell(invocation)
            invocation.outputText(["retried": chosen.count, "sent": sent]) {
                "put \(chosen.count) back in line"
                    + (sent > 0 ? "; \(sent) sent" : "; they go when the server is reachable")
            }
            if report?.refused.isEmpty == false { throw ReportedFailure(exitCode: .dataError) }
        }
    }

    /// `outbox drop N|--all`: forgets refused writes.
    enum Drop: ClientCommand {
        static let spec = CommandSpec(
            "outbox drop", "[N]", summary: "forget a refused write",
            options: [OptionSpec("all", nil, "every refused write")], examples: ["outbox drop 1", "outbox drop --all"])

        static func run(_ invocation: inout Invocation) throws {
            let chosen = try choose(&invocation, verb: "drop")
            guard !chosen.isEmpty else {
                return invocation.outputText(["dropped": 0]) { "the server refused nothing: nothing to drop" }
            }
            for write in chosen { invocation.outbox.drop(write) }
            invocation.updateCache { _ in }
            let words = invocation.writeWords()
            invocation.outputText(["dropped": chosen.count]) {
                "dropped " + chosen.map { words($0) }.joined(separator: "; ")
            }
        }
    }

    /// The refused writes `N` (as `outbox` numbers them) or `--all` name.
    private static func choose(_ invocation: inout Invocation, verb: String) throws -> [Outbox.Write] {
        let all = invocation.arguments.flag("all")
        let text = invocation.arguments.positional()
        try invocation.arguments.finish()
        let listed = numbered(invocation.waitingWrites(), invocation.refusedWrites())
        if all { return listed.map(\.1).filter { $0.refusal != nil } }
        guard let text, let number = Int(text) else {
            throw UsageError("outbox \(verb) needs N (see water-client outbox) or --all")
        }
        guard let write = listed.first(where: { $0.0 == number })?.1 else {
            throw WaterError(.notFound, "the outbox has no write \(number); see water-client outbox")
        }
        guard write.refusal != nil else {
            throw WaterError(
                .failedPrecondition, "write \(number) was not refused: it is sent when the server is reachable")
        }
        return [write]
    }

    private static func numbered(_ pending: [Outbox.Write], _ refused: [Outbox.Write]) -> [(Int, Outbox.Write)] {
        Array(zip(1..., refused + pending))
    }
}

struct SyncJSON: Encodable {
    var sent: [String]
    var refused: [[String: String]]
    var damaged: [String]
    var waitingForLogin: Int
}

struct OutboxJSON: Encodable {
    var number: Int
    var kind, description, server, username: String
    var queuedAtUnixMs: Int64
    var refused: String?
}
