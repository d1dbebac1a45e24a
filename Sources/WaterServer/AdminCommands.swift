import Glibc
import WaterCore
import WaterLog
import WaterStore
import WaterSystem
import WaterZoneInfo

/// What `water-server init`, `check`, `repair`, `restore` and `passwd` do. All but
/// `check` need the server stopped (the data directory's lock makes sure of that); `check`
/// only reads, so it also runs beside a serving server.
public enum AdminCommands {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The system's zones, which the archives are read with (as `serve` reads them by default).
    private static let timeZones: any TimeZoneSource = ZoneInfo.system

    private static func open(_ path: String, logger: Logger, timeZone: MemberTimeZone = .utc) throws -> FileArchiveStore
    {
        var options = StoreOptions(timeZones: timeZones)
        options.defaultTimeZone = timeZone
        let store: FileArchiveStore
        do {
            store = try FileArchiveStore(
                path: path, options: options, logger: logger, owner: "pid \(getpid()) water-server admin")
        } catch {
            // The swift 6.3 compiler crashes on `catch where` after a typed throw; hence the `if`.
            if error.code == .locked {
                throw ArchiveError(.locked, "\(error.message) (while it runs, use water-client member ... instead)")
            }
            throw error
        }
        return store
    }

    /// Creates the data directory and its first admin. Every argument is checked before anything
    /// is created, so a refused one leaves no half-made directory behind.
    public static func initialize(
        dataDirectory: String, admin: String, password: String, timeZone: MemberTimeZone,
        strength: PasswordHasher.Strength, logger: Logger
    ) throws -> Account {
        try AccountBook.checkUsernameForm(admin, field: "admin")
        try AccountBook.checkPassword(password, field: "password")
        let store = try open(dataDirectory, logger: logger, timeZone: timeZone)
        defer { store.close() }
        guard try store.accounts.read({ $0.accounts.isEmpty }) else {
            throw Failure(description: "\(dataDirectory) already has members; add more with water-client member add")
        }
        guard let hash = PasswordHasher(strength: strength).hashNow(password) else {
            throw Failure(description: "could not hash the password (out of memory?)")
        }
        let now = UnixTime.nowMilliseconds()
        let account = try store.accounts.commitAndWait(
            { book in
                let mutation = try book.validateAdd(
                    username: admin, displayName: admin, role: .admin, timeZone: timeZone,
                    passwordHash: hash, now: now)
                guard case .added(let account) = mutation else { return [] }
                _ = try store.createMember(account.id)
                return [mutation]
            }, result: { $0.account(named: admin)! })
        try store.member(account.id)!.commitAndWait { _ in
            [.water(.timeZoneSet(timeZone, movedAtUnixMilliseconds: nil))]
        }
        return account
    }

    /// Every archive's state, read without changing a byte (also while the server runs).
    public static func check(dataDirectory: String) throws -> [DataDirectoryCheck.Report] {
        guard access(dataDirectory, F_OK) == 0 else { throw Failure(description: "\(dataDirectory) does not exist") }
        return try DataDirectoryCheck.run(dataDirectory, timeZones: timeZones)
    }

    /// Which archives `repair` rebuilds.
    public enum RepairTarget: Sendable {
        case member(username: String)
        case accounts
        case household
        /// Every archive that `check` finds protected.
        case all
    }

    /// What `repair` did to one archive.
    public enum RepairResult: Sendable {
        case repaired(ArchiveRepair.Outcome)
        /// The archive loads; nothing was changed.
        case healthy(archive: String)
    }

    /// Rebuilds protected archives from what still verifies in them (server stopped); the
    /// originals are kept beside them. Healthy archives are left alone.
    public static func repair(dataDirectory: String, target: RepairTarget, now: Int64) throws -> [RepairResult] {
        guard access(dataDirectory, F_OK) == 0 else { throw Failure(description: "\(dataDirectory) does not exist") }
        let lock = try lockStopped(dataDirectory, for: "repair")
        defer { Glibc.close(lock.raw) }
        let reports = try DataDirectoryCheck.run(dataDirectory, timeZones: timeZones)
        let archives: [String]
        switch target {
        case .accounts: archives = [DataDirectory.accounts]
        case .household: archives = [DataDirectory.household]
        case .all: archives = reports.filter { $0.problem != nil }.map(\.archive)
        case .member(let username):
            let id: UInt64?
            do {
                id = try DataDirectory.memberID(named: username, in: dataDirectory, timeZones: timeZones)
            } catch {
                throw Failure(
                    description: "the accounts cannot be read (\(error.message)); "
                        + "repair them first: water-server repair --accounts --data \(dataDirectory)")
            }
            guard let id else { throw Failure(description: "there is no member called \(username)") }
            archives = ["\(DataDirectory.users)/\(id)"]
        }
        return try archives.map { archive in
            guard let report = reports.first(where: { $0.archive == archive }) else {
                throw Failure(
                    description: "\(dataDirectory)/\(archive) does not exist; restore it from a backup "
                        + "(water-server restore --member NAME)")
            }
            guard report.problem != nil else { return .healthy(archive: archive) }
            return .repaired(
                try ArchiveRepair.repair(archive, in: dataDirectory, now: now / 1000, timeZones: timeZones))
        }
    }

    /// Puts a backup back into `dataDirectory` (server stopped; see ``Backup/restore(from:to:force:now:)``)
    /// and ends every session it holds unless `keepSessions`. A backup holds the sessions open
    /// when it was taken, and some may have been revoked since (a logout, a new password, a
    /// removed member): a restore must bring none of them back, so members log in again.
    /// - Returns: where the data that was there went, and how many sessions ended (nil: kept).
    public static func restore(
        from backup: String, into dataDirectory: String, force: Bool, keepSessions: Bool, now: Int64,
        logger: Logger
    ) throws -> (keptAside: String?, sessionsEnded: Int?) {
        if !keepSessions, access("\(backup)/\(DataDirectory.accounts)", F_OK) == 0,
            let problem = DataDirectoryCheck.problem(of: DataDirectory.accounts, in: backup, timeZones: timeZones)
        {
            throw Failure(
                description: "the backup's accounts do not read (\(problem)), so its sessions cannot be ended; "
                    + "nothing was changed. Restore it as it is with --keep-sessions (then water-server repair "
                    + "--accounts), or choose another backup")
        }
        let keptAside = try Backup.restore(from: backup, to: dataDirectory, force: force, now: now)
        guard !keepSessions else { return (keptAside, nil) }
        let store = try open(dataDirectory, logger: logger)
        defer { store.close() }
        let sessions = try store.accounts.read { Array($0.sessions.keys) }
        if !sessions.isEmpty { try store.accounts.commitAndWait { _ in sessions.map { .sessionEnded($0) } } }
        return (keptAside, sessions.count)
    }

    /// Puts one member's archive back from a backup (server stopped); the one it replaces is
    /// kept beside it.
    /// - Returns: the archive restored and where the replaced one was kept.
    public static func restoreMember(_ username: String, from backup: String, dataDirectory: String, now: Int64)
        throws -> (archive: String, keptAside: String?)
    {
        let lock = try lockStopped(dataDirectory, for: "restore")
        defer { Glibc.close(lock.raw) }
        // The member's id: from the live accounts, or the backup's when those cannot be read.
        let id =
            (try? DataDirectory.memberID(named: username, in: dataDirectory, timeZones: timeZones))
            ?? (try? DataDirectory.memberID(named: username, in: backup, timeZones: timeZones))
        guard let id else { throw Failure(description: "there is no member called \(username) here or in \(backup)") }
        let archive = "\(DataDirectory.users)/\(id)"
        return (
            archive,
            try Backup.restoreArchive(archive, from: backup, into: dataDirectory, now: now, timeZones: timeZones)
        )
    }

    /// The data directory's lock, for a command that needs the server stopped.
    private static func lockStopped(_ path: String, for command: String) throws -> FileHandleID {
        do {
            return try DataDirectory.lock(path, owner: "pid \(getpid()) water-server \(command)")
        } catch {
            if error.code == .locked {
                throw ArchiveError(.locked, "\(error.message) (\(command) needs the server stopped)")
            }
            throw error
        }
    }

    /// Sets a member's password; their sessions end.
    public static func resetPassword(
        dataDirectory: String, username: String, password: String,
        strength: PasswordHasher.Strength, logger: Logger
    ) throws {
        try AccountBook.checkPassword(password, field: "password")
        let store = try open(dataDirectory, logger: logger)
        defer { store.close() }
        let member = try store.accounts.read { try $0.existing(username) }
        guard let hash = PasswordHasher(strength: strength).hashNow(password) else {
            throw Failure(description: "could not hash the password (out of memory?)")
        }
        try store.accounts.commitAndWait { _ in [.passwordSet(memberID: member.id, hash: hash)] }
    }
}
