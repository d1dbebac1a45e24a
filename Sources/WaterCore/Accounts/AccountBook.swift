/// What a member may do beyond their own data.
public enum Role: Int, Hashable, Sendable, CustomStringConvertible {
    case member = 1
    /// Adds, renames, resets and removes members.
    case admin = 2

    public var description: String { self == .admin ? "admin" : "member" }
}

/// A member of the household.
public struct Account: Hashable, Sendable {
    public var id: UInt64
    /// Matches `^[a-z][a-z0-9_-]{0,31}$`; what people type to log in. Never used as a path.
    public var username: String
    /// Kept to ``SharedText/displayName``.
    public var displayName: String
    public var role: Role
    public var timeZone: MemberTimeZone
    /// libsodium's argon2id string (parameters, salt and hash).
    public var passwordHash: String
    public var createdAtUnixMilliseconds: Int64
    /// Added without a password (``passwordHash`` empty until an admin sets one); admins and
    /// ``guardians`` act for them.
    public var isChild: Bool
    /// Member ids who may act for this member, ascending.
    public var guardians: [UInt64]
    /// The times the member was removed and brought back, oldest first (at most
    /// ``AccountBook/maximumAbsences``): their days in between are not a member's.
    public var absences: [Absence] = []
    /// When a removed member was removed; nil for a member (and one removed before this was kept).
    public var removedAtUnixMilliseconds: Int64?
    /// What the server reminds them of, and where (off by default).
    public var reminders = ReminderSettings()

    /// A removal and the restore that ended it.
    public struct Absence: Hashable, Sendable {
        public var removedAtUnixMilliseconds: Int64
        public var restoredAtUnixMilliseconds: Int64

        public init(removedAtUnixMilliseconds: Int64, restoredAtUnixMilliseconds: Int64) {
            (self.removedAtUnixMilliseconds, self.restoredAtUnixMilliseconds) = (
                removedAtUnixMilliseconds, restoredAtUnixMilliseconds
            )
        }
    }

    public init(
        id: UInt64, username: String, displayName: String, role: Role, timeZone: MemberTimeZone,
        passwordHash: String, createdAtUnixMilliseconds: Int64, isChild: Bool = false, guardians: [UInt64] = []
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.role = role
        self.timeZone = timeZone
        self.passwordHash = passwordHash
        self.createdAtUnixMilliseconds = createdAtUnixMilliseconds
        self.isChild = isChild
        self.guardians = guardians
    }

    /// No password set: nobody can log in as this member (a child until an admin gives one).
    public var hasPassword: Bool { !passwordHash.isEmpty }
}

/// A change to the accounts, as the journal records it.
public enum AccountMutation: Hashable, Sendable {
    case added(Account)
    /// New username, display name, role, time zone, child flag and guardians; the password hash
    /// is not touched.
    case changed(Account)
    /// A new password hash; ends the member's sessions.
    case passwordSet(memberID: UInt64, hash: String)
    /// Ends the member's sessions; the id is never given to anyone else. The instant is nil in
    /// records from before it was kept.
    case removed(memberID: UInt64, atUnixMilliseconds: Int64?)
    case sessionStarted(Session)
    case sessionEnded(TokenDigest)
    /// The household's drinks changed.
    case drink(DrinkMutation)
    /// The member's reminders, whole.
    case remindersSet(memberID: UInt64, ReminderSettings)
}

/// The household's members, their sessions and the drinks they log.
public struct AccountBook: Hashable, Sendable {
    public private(set) var accounts: [UInt64: Account] = [:]
    public private(set) var sessions: [TokenDigest: Session] = [:]
    /// Kept with the accounts: household-wide, changed by admins, and read by every log.
    public private(set) var drinks = DrinkList()
    /// The id the next member gets: ids are never reused, so a removed member's archive can
    /// never be read by someone new.
    public private(set) var nextMemberID: UInt64 = 1
    /// Members removed, as they were when removed: their archives stay on disk, and an admin
    /// may bring one back (``validateRestore(_:)``).
    public private(set) var removedAccounts: [UInt64: Account] = [:]
    /// The sessions removed members had, so that a call with one is told the member was removed
    /// rather than that the session expired. Restoring the member ends them.
    public private(set) var removedSessions: [TokenDigest: Session] = [:]
    private var idsByUsername: [String: UInt64] = [:]

    public init() {}

    public func account(named username: String) -> Account? {
        idsByUsername[username].flatMap { accounts[$0] }
    }

    /// Members sorted by username.
    public var members: [Account] { accounts.values.sorted { $0.username < $1.username } }

    /// Removed members, by username (then id: a name may have been removed more than once).
    public var removedMembers: [Account] {
        removedAccounts.values.sorted { ($0.username, $0.id) < ($1.username, $1.id) }
    }

    /// The session a removed member had with this token digest, when it has not expired at `now`.
    public func removedSession(_ digest: TokenDigest, now: Int64) -> Session? {
        removedSessions[digest].flatMap { $0.expiresAtUnixMilliseconds > now ? $0 : nil }
    }

    /// The session of a token digest, when it exists and has not expired at `now`.
    public func session(_ digest: TokenDigest, now: Int64) -> Session? {
        guard let session = sessions[digest], session.expiresAtUnixMilliseconds > now,
            accounts[session.memberID] != nil
        else { return nil }
        return session
    }

    /// Refuses a name that cannot be a username; `field` names it in the error.
    public static func checkUsernameForm(_ username: String, field: String) throws(DomainError) {
        guard isValidUsername(username) else {
            throw .invalid(
                field, "a username must start with a-z and hold only a-z, 0-9, _ and -, at most 32 characters")
        }
    }

    /// At most this many members (removed ones aside): the server may hold each one's archive in
    /// memory, and the ceiling README gives for a 1 GB Pi is figured for 16 members at their caps.
    public static let maximumMembers = 16
    /// At most this many removals kept per member (about 24 bytes each in the accounts
    /// archive): past it the oldest is forgotten, and its days count as a member's again.
    public static let maximumAbsences = 64

    public static func isValidUsername(_ name: String) -> Bool {
        NameForm.username.matches(name)
    }

    // MARK: Validating requests

    public func validateAdd(
        username: String, displayName: String, role: Role, timeZone: MemberTimeZone,
        passwordHash: String, now: Int64, isChild: Bool = false
    ) throws(DomainError) -> AccountMutation {
        try checkUsername(username, field: "username")
        try checkRoom()
        if isChild && role == .admin { throw .invalid("role", "a child cannot be added as an admin") }
        let displayName = try SharedText.displayName.checked(displayName.isEmpty ? username : displayName)
        return .added(
            Account(
                id: nextMemberID, username: username, displayName: displayName, role: role,
                timeZone: timeZone, passwordHash: isChild ? "" : passwordHash, createdAtUnixMilliseconds: now,
                isChild: isChild))
    }

    /// Makes `guardianName` a guardian of the child `childName`, or (`remove`) no longer one.
    /// Nil when nothing changes (already one, or already not): repeating it is harmless.
    public func validateGuardian(child childName: String, guardian guardianName: String, remove: Bool)
        throws(DomainError) -> AccountMutation?
    {
        var child = try existing(childName)
        // What is asked is wrong whatever the household's state: bad data, not a precondition.
        guard child.isChild else {
            throw .invalid(
                "username",
                "\(child.username) is not a child: only a child (member add NAME --child) has guardians, "
                    + "and admins act for every member already")
        }
        let guardian: Account
        do { guardian = try existing(guardianName) } catch {
            throw DomainError(.notFound, field: "guardian", error.message)
        }
        guard guardian.id != child.id else {
            throw .invalid("guardian", "\(child.username) cannot be their own guardian")
        }
        let has = child.guardians.contains(guardian.id)
        guard has == remove else { return nil }
        child.guardians =
            remove ? child.guardians.filter { $0 != guardian.id } : (child.guardians + [guardian.id]).sorted()
        return .changed(child)
    }

    /// Makes a member an admin or an admin a member; never the household's last admin.
    /// Nil when the member has that role already.
    public func validateRole(_ username: String, role: Role) throws(DomainError) -> AccountMutation? {
        var account = try existing(username)
        guard account.role != role else { return nil }
        if role == .admin && account.isChild {
            throw .invalid("role", "\(account.username) is a child, and a child cannot be an admin")
        }
        if role == .member { try refuseLastAdmin(account, field: "role", "cannot be made a member") }
        account.role = role
        return .changed(account)
    }

    /// Removing `username`: their account goes, their archive stays on disk (``validateRestore(_:)``
    /// brings both back); never the household's last admin.
    public func validateRemoval(_ username: String, now: Int64) throws(DomainError) -> AccountMutation {
        let account = try existing(username)
        try refuseLastAdmin(account, field: "username", "cannot be removed")
        return .removed(memberID: account.id, atUnixMilliseconds: now)
    }

    /// The one rule both a removal and a demotion keep: a household always has an admin, who can
    /// add, repair and reset. FAILED_PRECONDITION: the caller may do this, the household may not.
    private func refuseLastAdmin(_ account: Account, field: String, _ refused: String) throws(DomainError) {
        guard account.role == .admin, !members.contains(where: { $0.role == .admin && $0.id != account.id }) else {
            return
        }
        throw DomainError(
            .full, field: field,
            "\(account.username) is the household's last admin and \(refused); make another member an admin first")
    }

    /// Usernames of a member's guardians who are still members, sorted.
    public func guardianNames(of account: Account) -> [String] {
        account.guardians.compactMap { accounts[$0]?.username }.sorted()
    }

    /// Renames `username`: a new username, a new display name, or both (nil keeps).
    public func validateRename(_ username: String, newUsername: String?, newDisplayName: String?)
        throws(DomainError) -> AccountMutation
    {
        var account = try existing(username)
        if let newUsername, newUsername != username {
            try checkUsername(newUsername, field: "new_username")
            account.username = newUsername
        }
        if let newDisplayName { account.displayName = try SharedText.displayName.checked(newDisplayName) }
        return .changed(account)
    }

    /// Bringing back the removed member called `username` (the latest removed, when several
    /// were): their account as it was, the same id and so the same archive, with the time they
    /// were away kept (the oldest forgotten past ``maximumAbsences``).
    public func validateRestore(_ username: String, now: Int64) throws(DomainError) -> AccountMutation {
        let named = Self.isValidUsername(username) ? username : "that"
        guard let removed = removedAccounts.values.filter({ $0.username == username }).max(by: { $0.id < $1.id })
        else {
            throw DomainError(
                .notFound, field: "username",
                account(named: username) == nil
                    ? "no removed member is called \(named)" : "\(named) is a member of the household, not removed")
        }
        guard account(named: username) == nil else {
            throw DomainError(
                .conflict, field: "username",
                "there is a member called \(named) now; rename them first (member rename \(named) --to NEW_NAME)")
        }
        try checkRoom()
        var restored = removed
        if let removedAt = restored.removedAtUnixMilliseconds, removedAt <= now {
            restored.absences.append(
                Account.Absence(removedAtUnixMilliseconds: removedAt, restoredAtUnixMilliseconds: now))
            restored.absences.removeFirst(max(0, restored.absences.count - Self.maximumAbsences))
        }
        restored.removedAtUnixMilliseconds = nil
        return .added(restored)
    }

    public func existing(_ username: String) throws(DomainError) -> Account {
        guard let account = account(named: username) else {
            // Only a name that could be a username is repeated back: what a peer sends is never
            // echoed whole.
            let named = Self.isValidUsername(username) ? username : "that"
            throw DomainError(.notFound, field: "username", "there is no member called \(named)")
        }
        return account
    }

    /// Refuses a new member (an add, or a removed member brought back) once the household has
    /// ``maximumMembers``.
    private func checkRoom() throws(DomainError) {
        guard accounts.count < Self.maximumMembers else {
            throw DomainError(
                .full, field: "username",
                "at most \(Self.maximumMembers) members in a household: it has \(accounts.count); remove one first")
        }
    }

    private func checkUsername(_ username: String, field: String) throws(DomainError) {
        try Self.checkUsernameForm(username, field: field)
        guard account(named: username) == nil else {
            throw DomainError(.conflict, field: field, "there is already a member called \(username)")
        }
    }

    // MARK: Applying

    public mutating func apply(_ mutation: AccountMutation) {
        switch mutation {
        case .added(let account):
            guard accounts[account.id] == nil, idsByUsername[account.username] == nil else { return }
            accounts[account.id] = account
            idsByUsername[account.username] = account.id
            nextMemberID = max(nextMemberID, account.id + 1)
            // Adding a removed member's id back is restoring them; they log in again.
            removedAccounts[account.id] = nil
            removedSessions = removedSessions.filter { $0.value.memberID != account.id }
        case .changed(let account):
            guard let old = accounts[account.id] else { return }
            idsByUsername[old.username] = nil
            idsByUsername[account.username] = account.id
            accounts[account.id] = Account(
                id: account.id, username: account.username, displayName: account.displayName,
                role: account.role, timeZone: account.timeZone, passwordHash: old.passwordHash,
                createdAtUnixMilliseconds: old.createdAtUnixMilliseconds, isChild: account.isChild,
                guardians: account.guardians)
            accounts[account.id]?.absences = old.absences
            accounts[account.id]?.reminders = old.reminders
        case .remindersSet(let memberID, let settings):
            accounts[memberID]?.reminders = settings
        case .passwordSet(let memberID, let hash):
            accounts[memberID]?.passwordHash = hash
            sessions = sessions.filter { $0.value.memberID != memberID }
        case .removed(let memberID, let removedAt):
            if var account = accounts.removeValue(forKey: memberID) {
                idsByUsername[account.username] = nil
                account.removedAtUnixMilliseconds = removedAt
                removedAccounts[memberID] = account
                for (digest, session) in sessions where session.memberID == memberID {
                    removedSessions[digest] = session
                }
            }
            sessions = sessions.filter { $0.value.memberID != memberID }
        case .sessionStarted(let session):
            guard accounts[session.memberID] != nil else { return }
            sessions[session.digest] = session
        case .sessionEnded(let digest):
            sessions[digest] = nil
            removedSessions[digest] = nil
        case .drink(let change):
            drinks.apply(change)
        }
    }

    /// Restores the drinks from a snapshot (one that kept none keeps the defaults).
    public mutating func restoreDrinks(_ list: DrinkList) {
        drinks = list
    }

    /// Keeps a removed member read from a snapshot.
    public mutating func keepRemoved(_ account: Account) {
        guard accounts[account.id] == nil else { return }
        removedAccounts[account.id] = account
        nextMemberID = max(nextMemberID, account.id + 1)
    }

    /// Keeps a removed member's session read from a snapshot (after ``keepRemoved(_:)``).
    public mutating func keepRemovedSession(_ session: Session) {
        guard removedAccounts[session.memberID] != nil else { return }
        removedSessions[session.digest] = session
    }

    /// Restores the id counter from a snapshot (ids of removed members stay used).
    public mutating func reserveIDs(below next: UInt64) {
        nextMemberID = max(nextMemberID, next)
    }

    /// Usernames valid and unique, every session's member present.
    public var isValid: Bool {
        idsByUsername.count == accounts.count && accounts.values.allSatisfy { Self.isValidUsername($0.username) }
            && sessions.values.allSatisfy { accounts[$0.memberID] != nil }
            && accounts.keys.allSatisfy { $0 < nextMemberID } && drinks.isValid
            && removedAccounts.keys.allSatisfy { $0 < nextMemberID && accounts[$0] == nil }
            && removedSessions.values.allSatisfy { removedAccounts[$0.memberID] != nil }
    }
}
