import Glibc
import WaterCore
import WaterLog
import WaterStore

/// What `water-server init`, `check` and `passwd` do, with the server stopped (the data
/// directory's lock makes sure of that: with the server running they are refused).
public enum AdminCommands {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    private static func open(_ path: String, logger: Logger, timeZone: MemberTimeZone = .utc) throws -> FileArchiveStore {
        var options = StoreOptions()
        options.defaultTimeZone = timeZone
        let store: FileArchiveStore
        do {
            store = try FileArchiveStore(path: path, options: options, logger: logger, owner: "pid \(getpid()) water-server admin")
        } catch {
            // The swift 6.3 compiler crashes on `catch where` after a typed throw; hence the `if`.
            if error.code == .locked {
                throw ArchiveError(.locked, "\(error.message) (while it runs, use water-client member ... instead)")
            }
            throw error
        }
        return store
    }

    /// Creates the data directory and its first admin.
    public static func initialize(dataDirectory: String, admin: String, password: String, timeZone: MemberTimeZone,
                                  strength: PasswordHasher.Strength, logger: Logger) throws -> Account
    {
        try AccountBook.checkPassword(password, field: "the password")
        let store = try open(dataDirectory, logger: logger, timeZone: timeZone)
        defer { store.close() }
        guard try store.accounts.read({ $0.accounts.isEmpty }) else {
            throw Failure(description: "\(dataDirectory) already has members; add more with water-client member add")
        }
        guard let hash = PasswordHasher(strength: strength).hashNow(password) else {
            throw Failure(description: "could not hash the password (out of memory?)")
        }
        let now = UnixTime.nowMilliseconds()
        let account = try store.accounts.commitAndWait({ book in
            let mutation = try book.validateAdd(username: admin, displayName: admin, role: .admin, timeZone: timeZone,
                                                passwordHash: hash, now: now)
            guard case .added(let account) = mutation else { return [] }
            _ = try store.createMember(account.id)
            return [mutation]
        }, result: { $0.account(named: admin)! })
        try store.member(account.id)!.commitAndWait { _ in [.water(.timeZoneSet(timeZone))] }
        return account
    }

    /// Every archive's state: nil when it loads and passes its checks, else why not.
    public static func check(dataDirectory: String, logger: Logger) throws -> [(path: String, problem: String?)] {
        guard access(dataDirectory, F_OK) == 0 else { throw Failure(description: "\(dataDirectory) does not exist") }
        let store = try open(dataDirectory, logger: logger)
        defer { store.close() }
        let protected = Dictionary(store.protectedArchives.map { ($0.path, $0.reason.message) }, uniquingKeysWith: { a, _ in a })
        let all = [store.accounts.directory, store.household.directory] + store.memberIDs.map { store.member($0)!.directory }
        return all.map { ($0, protected[$0]) }
    }

    /// Sets a member's password; their sessions end.
    public static func resetPassword(dataDirectory: String, username: String, password: String,
                                     strength: PasswordHasher.Strength, logger: Logger) throws
    {
        try AccountBook.checkPassword(password, field: "the password")
        let store = try open(dataDirectory, logger: logger)
        defer { store.close() }
        let member = try store.accounts.read { try $0.existing(username) }
        guard let hash = PasswordHasher(strength: strength).hashNow(password) else {
            throw Failure(description: "could not hash the password (out of memory?)")
        }
        try store.accounts.commitAndWait { _ in [.passwordSet(memberID: member.id, hash: hash)] }
    }
}
