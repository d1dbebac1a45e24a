import WaterCLI
import WaterCore
import WaterServer
import WaterStore

/// `backup`: copies the data directory, also while the server runs, and reads the copy back.
enum BackupCommand: ServerCommand {
    static let spec = CommandSpec(
        "backup", summary: "copy the data, also while the server runs",
        details: """
            Copies the data directory into --to, a new folder, also while the server runs, and reads the
            copy back. The folder --to is in must exist: a backup never makes it, so one to a disk that is
            not mounted says so instead of filling the disk the mount point is on.
            """,
        options: [
            dataOption,
            OptionSpec("to", "DIR", "where the copy goes", required: true),
            jsonOption,
        ],
        examples: ["backup --data /var/lib/water --to /mnt/usb/water-2026-11-30"])

    static func run(_ arguments: inout Arguments) throws {
        let data = try requireData(&arguments)
        guard let destination = try arguments.option("to") else { throw UsageError("--to PATH is required") }
        let json = arguments.flag("json")
        try arguments.finish()
        let archives = try Backup.copy(from: data, to: destination)
        // Prove the copy reads. An archive damaged in the data directory too is copied as it is
        // (that copy is what a repair would want), and said so; any other failure fails the backup.
        // The data directory is read again only when the copy has something to explain.
        let copyProblems = try AdminCommands.check(dataDirectory: destination).filter { $0.problem != nil }
        let damagedHere =
            copyProblems.isEmpty
            ? [] : Set(try AdminCommands.check(dataDirectory: data).filter { $0.problem != nil }.map(\.archive))
        var failed = false
        for report in copyProblems {
            guard let problem = report.problem else { continue }
            if damagedHere.contains(report.archive) {
                Terminal.error(
                    "water-server: warning: \(data)/\(report.archive) is damaged (\(problem)); "
                        + "copied as it is. Repair it with water-server repair")
            } else {
                Terminal.error("water-server: the copy of \(report.archive) does not read: \(problem)")
                failed = true
            }
        }
        guard !failed else { throw ReportedFailure(exitCode: .failure) }
        let healthy = archives - damagedHere.count
        report(
            json: json,
            BackupJSON(destination: destination, archives: archives, readBack: healthy, damaged: damagedHere.sorted())
        ) {
            "backed up \(archives) archives of \(data) to \(destination); \(healthy) read back"
                + (damagedHere.isEmpty ? "" : ", \(damagedHere.count) damaged ones copied as they are")
        }
    }
}

/// What `backup --json` prints.
struct BackupJSON: Encodable {
    var destination: String
    var archives: Int
    var readBack: Int
    /// Archives damaged in the data directory too, copied as they are.
    var damaged: [String]
}

/// `restore`: puts a backup back, or one member's archive.
enum RestoreCommand: ServerCommand {
    static let spec = CommandSpec(
        "restore", summary: "put a backup back (server stopped), or one member's archive",
        details: """
            Puts a backup back into DIR (the server stopped; --force replaces data that is there, kept
            aside), or with --member only that member's archive (the one it replaces is kept). A whole
            restore ends every session the backup holds, so none revoked since it was taken comes back:
            members log in again (--keep-sessions keeps them).
            """,
        options: [
            dataOption,
            OptionSpec("from", "DIR", "the backup", required: true),
            OptionSpec("force", nil, "replace the data that is there (it is kept aside)"),
            OptionSpec("member", "NAME", "restore only this member's archive"),
            OptionSpec("keep-sessions", nil, "keep the backup's sessions (by default every member logs in again)"),
            jsonOption,
        ],
        examples: [
            "restore --from /mnt/usb/water-2026-11-30 --data /var/lib/water",
            "restore --from /mnt/usb/water-2026-11-30 --data /var/lib/water --member ben",
        ])

    static func run(_ arguments: inout Arguments) throws {
        let data = try requireData(&arguments)
        guard let backup = try arguments.option("from") else { throw UsageError("--from PATH is required") }
        let force = arguments.flag("force")
        let member = try arguments.option("member")
        let keepSessions = arguments.flag("keep-sessions")
        let json = arguments.flag("json")
        try arguments.finish()
        if let member {
            guard !force else {
                throw UsageError("--member restores one archive and keeps the one it replaces; it takes no --force")
            }
            guard !keepSessions else {
                throw UsageError(
                    "--member leaves the accounts, and so every session, as they are; it takes no --keep-sessions")
            }
            let (archive, aside) = try AdminCommands.restoreMember(
                member, from: backup, dataDirectory: data,
                now: UnixTime.nowMilliseconds())
            report(json: json, RestoreJSON(from: backup, into: "\(data)/\(archive)", keptAside: aside)) {
                (aside.map { "the archive that was in \(data)/\(archive) is kept in \($0)\n" } ?? "")
                    + "restored \(member)'s archive from \(backup) into \(data)/\(archive)"
            }
            return
        }
        // A running server holds the lock: never pull its directory away from under it.
        if let user = DataDirectory.user(of: data) {
            throw ArchiveError(.locked, "the data directory \(data) is in use by \(user); stop it first")
        }
        let (aside, ended) = try AdminCommands.restore(
            from: backup, into: data, force: force, keepSessions: keepSessions, now: UnixTime.nowMilliseconds(),
            logger: .standardError(minimumLevel: .warning))
        report(json: json, RestoreJSON(from: backup, into: data, keptAside: aside, sessionsEnded: ended)) {
            (aside.map { "the data that was in \(data) is kept in \($0)\n" } ?? "")
                + "restored \(backup) into \(data); start it with: water-server serve --data \(data)\n"
                + (ended.map {
                    "ended the backup's \($0) \($0 == 1 ? "session" : "sessions"): every member logs in again"
                }
                    ?? "kept the backup's sessions (--keep-sessions): any ended since it was taken work again")
        }
    }
}

/// What `restore --json` prints.
struct RestoreJSON: Encodable {
    var from: String
    var into: String
    /// Where what was replaced is kept, when something was.
    var keptAside: String?
    /// How many of the backup's sessions were ended; absent when they were kept (--keep-sessions,
    /// or --member, which leaves the accounts as they are).
    var sessionsEnded: Int?
}
