import WaterCLI
import WaterServer
import WaterStore

/// `check`: verifies every archive, reading only; ends with 1 when one is damaged.
enum CheckCommand: ServerCommand {
    static let spec = CommandSpec(
        "check", summary: "verify every archive, reading only (also while serving)",
        details: "Verifies every archive, reading only (also while serving); exits 1 when any is damaged.",
        options: [
            dataOption,
            OptionSpec("json", nil, "one JSON object: each archive's state"),
        ],
        examples: ["check --data /var/lib/water", "check --data /var/lib/water --json"])

    static func run(_ arguments: inout Arguments) throws {
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
            guard damaged == 0 else { throw ReportedFailure(exitCode: .failure) }
            return
        }
        if let user { Terminal.print("in use by \(user): reading beside it") }
        var tornTails: Set<DataDirectoryCheck.TornTail> = []
        for report in reports {
            let path = "\(data)/\(report.archive)"
            if report.archive != DataDirectory.log {
                // Which member's it is: `users/2` alone tells an admin nothing.
                let whose = report.member.map { "\($0)'s archive" + (report.removed ? ", removed" : "") }
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
                    tail.journal.hasPrefix("\(DataDirectory.log)/")
                    ? "\(data)/\(tail.journal)" : "\(path)/\(tail.journal)"
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
        guard damaged == 0 else { throw ReportedFailure(exitCode: .failure) }
    }
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
