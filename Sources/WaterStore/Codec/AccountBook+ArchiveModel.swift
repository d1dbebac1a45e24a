import WaterCore

/// The household's accounts on disk.
extension AccountBook: ArchiveModel {
    public typealias Mutation = AccountMutation

    public static let kind = ArchiveKind.accounts
    public static let snapshotVersions: ClosedRange<UInt16> = 1...1

    public init(context: ArchiveContext) {
        self.init()
    }

    public func encodeSnapshot(lastSequence: UInt64, journalGeneration: UInt64) -> [UInt8] {
        WaterArchiveV1.AccountsSnapshot(
            lastSequence: lastSequence, journalGeneration: journalGeneration, nextMemberID: nextMemberID,
            accounts: accounts.values.sorted { $0.id < $1.id }.map(Self.stored),
            sessions: sessions.values.map(Self.stored), drinks: drinks.drinks.map(StoredValues.stored),
            removedAccounts: removedAccounts.values.sorted { $0.id < $1.id }.map(Self.stored),
            removedSessions: removedSessions.values.map(Self.stored),
            wallLinks: wallLinks.values.sorted { $0.madeAtUnixMilliseconds < $1.madeAtUnixMilliseconds }
                .map(Self.stored)
        ).serializedBytes()
    }

    public static func decodeSnapshot(_ body: [UInt8], version: UInt16, context: ArchiveContext)
        throws(ArchiveError) -> (archive: AccountBook, lastSequence: UInt64, journalGeneration: UInt64)
    {
        let snapshot = try StoredValues.decode(WaterArchiveV1.AccountsSnapshot.self, body)
        var book = AccountBook()
        for stored in snapshot.accounts { book.apply(.added(try account(stored, in: context))) }
        for stored in snapshot.removedAccounts { book.keepRemoved(try account(stored, in: context)) }
        book.reserveIDs(below: snapshot.nextMemberID)
        for stored in snapshot.sessions { book.apply(.sessionStarted(try session(stored))) }
        for stored in snapshot.removedSessions { book.keepRemovedSession(try session(stored)) }
        for stored in snapshot.wallLinks { book.apply(.wallLinkMade(try wallLink(stored))) }
        guard book.accounts.count == snapshot.accounts.count, book.sessions.count == snapshot.sessions.count,
            book.removedAccounts.count == snapshot.removedAccounts.count,
            book.removedSessions.count == snapshot.removedSessions.count,
            book.wallLinks.count == snapshot.wallLinks.count
        else {
            throw StoredValues.corrupt("accounts or sessions repeat, or a session names no member")
        }
        // None kept: a household from before drinks, which has the defaults.
        if !snapshot.drinks.isEmpty {
            let drinks = DrinkList(
                try snapshot.drinks.map { (stored) throws(ArchiveError) in try StoredValues.drink(stored) })
            guard drinks.isValid else { throw StoredValues.corrupt("the drinks repeat or have no water") }
            book.restoreDrinks(drinks)
        }
        return (book, snapshot.lastSequence, snapshot.journalGeneration)
    }

    public static func record(_ mutation: AccountMutation, sequence: UInt64) -> WaterArchiveV1.JournalRecord {
        var record = WaterArchiveV1.JournalRecord(sequence: sequence)
        switch mutation {
        case .added(let account):
            record.kind = .accountAdded
            record.account = stored(account)
        case .changed(let account):
            record.kind = .accountChanged
            record.account = stored(account)
        case .passwordSet(let memberID, let hash):
            record.kind = .passwordSet
            record.memberID = memberID
            record.text = hash
        case .removed(let memberID, let removedAt):
            record.kind = .accountRemoved
            record.memberID = memberID
            record.atUnixMs = removedAt ?? 0
        case .sessionStarted(let session):
            record.kind = .sessionStarted
            record.session = stored(session)
        case .sessionEnded(let digest):
            record.kind = .sessionEnded
            record.id = digest.bytes
        case .drink(.set(let drink)):
            record.kind = .drinkSet
            record.drink = StoredValues.stored(drink)
        case .drink(.removed(let name)):
            record.kind = .drinkRemoved
            record.text = name
        case .remindersSet(let memberID, let settings):
            record.kind = .remindersSet
            record.memberID = memberID
            record.reminders = stored(settings)
        case .wallLinkMade(let link):
            record.kind = .wallLinkMade
            record.wallLink = stored(link)
        case .wallLinkRevoked(let digest):
            record.kind = .wallLinkRevoked
            record.id = digest.bytes
        }
        return record
    }

    public static func decodeRecord(_ bytes: ArraySlice<UInt8>, context: ArchiveContext) throws(ArchiveError)
        -> (mutation: AccountMutation, sequence: UInt64)
    {
        let record = try StoredValues.decode(WaterArchiveV1.JournalRecord.self, bytes)
        let mutation: AccountMutation
        switch record.kind {
        case .accountAdded: mutation = .added(try account(record.account, in: context))
        case .accountChanged: mutation = .changed(try account(record.account, in: context))
        case .passwordSet: mutation = .passwordSet(memberID: record.memberID, hash: record.text)
        case .accountRemoved:
            mutation = .removed(
                memberID: record.memberID, atUnixMilliseconds: record.atUnixMs == 0 ? nil : record.atUnixMs)
        case .sessionStarted: mutation = .sessionStarted(try session(record.session))
        case .sessionEnded:
            guard let digest = TokenDigest(bytes: record.id) else {
                throw StoredValues.corrupt("a session digest is not 32 bytes")
            }
            mutation = .sessionEnded(digest)
        case .drinkSet: mutation = .drink(.set(try StoredValues.drink(record.drink)))
        case .drinkRemoved: mutation = .drink(.removed(record.text))
        case .remindersSet: mutation = .remindersSet(memberID: record.memberID, try reminders(record.reminders))
        case .wallLinkMade: mutation = .wallLinkMade(try wallLink(record.wallLink))
        case .wallLinkRevoked:
            guard let digest = TokenDigest(bytes: record.id) else {
                throw StoredValues.corrupt("a wall link's digest is not 32 bytes")
            }
            mutation = .wallLinkRevoked(digest)
        default: throw StoredValues.corrupt("the accounts' journal has a record of kind \(record.kind.rawValue)")
        }
        return (mutation, record.sequence)
    }

    private static func stored(_ account: Account) -> WaterArchiveV1.StoredAccount {
        WaterArchiveV1.StoredAccount(
            memberID: account.id, username: account.username, displayName: account.displayName,
            role: Int32(account.role.rawValue), timeZone: account.timeZone.identifier,
            passwordHash: account.passwordHash, createdAtUnixMs: account.createdAtUnixMilliseconds,
            child: account.isChild, guardians: account.guardians,
            absences: account.absences.map {
                WaterArchiveV1.Absence(
                    removedAtUnixMs: $0.removedAtUnixMilliseconds, restoredAtUnixMs: $0.restoredAtUnixMilliseconds)
            }, removedAtUnixMs: account.removedAtUnixMilliseconds ?? 0,
            reminders: account.reminders == ReminderSettings() ? nil : stored(account.reminders))
    }

    private static func stored(_ settings: ReminderSettings) -> WaterArchiveV1.StoredReminders {
        WaterArchiveV1.StoredReminders(
            waterEveryMinutes: UInt32(settings.water?.everyMinutes ?? 0),
            waterFromMinute: UInt32(settings.water?.hours.start ?? 0),
            waterToMinute: UInt32(settings.water?.hours.end ?? 0),
            mqtt: settings.mqtt, pushUrl: settings.push?.url ?? "", pushToken: settings.push?.token ?? "",
            chores: settings.chores)
    }

    /// Stored reminders, checked as SetReminders checks them; none when not stored.
    private static func reminders(_ stored: WaterArchiveV1.StoredReminders?) throws(ArchiveError) -> ReminderSettings {
        guard let stored else { return ReminderSettings() }
        var settings = ReminderSettings(chores: stored.chores, mqtt: stored.mqtt)
        if stored.waterEveryMinutes != 0 {
            guard let hours = WakingHours(start: Int(stored.waterFromMinute), end: Int(stored.waterToMinute)) else {
                throw StoredValues.corrupt("a member's reminder hours are out of range")
            }
            settings.water = ReminderSettings.Water(hours: hours, everyMinutes: Int(stored.waterEveryMinutes))
        }
        if !stored.pushUrl.isEmpty {
            settings.push = ReminderSettings.PushTarget(url: stored.pushUrl, token: stored.pushToken)
        }
        do {
            return try settings.checked()
        } catch {
            throw StoredValues.corrupt("a member's reminders are out of range (\(error.field ?? "?"))")
        }
    }

    private static func account(_ stored: WaterArchiveV1.StoredAccount?, in context: ArchiveContext)
        throws(ArchiveError)
        -> Account
    {
        guard let stored, let role = Role(rawValue: Int(stored.role)) else {
            throw StoredValues.corrupt("an account is missing or has no role")
        }
        var account = Account(
            id: stored.memberID, username: stored.username, displayName: stored.displayName, role: role,
            timeZone: try StoredValues.timeZone(stored.timeZone, in: context), passwordHash: stored.passwordHash,
            createdAtUnixMilliseconds: stored.createdAtUnixMs, isChild: stored.child,
            guardians: stored.guardians.sorted())
        account.absences = stored.absences.map {
            Account.Absence(
                removedAtUnixMilliseconds: $0.removedAtUnixMs, restoredAtUnixMilliseconds: $0.restoredAtUnixMs)
        }
        account.removedAtUnixMilliseconds = stored.removedAtUnixMs == 0 ? nil : stored.removedAtUnixMs
        account.reminders = try reminders(stored.reminders)
        guard account.absences.count <= AccountBook.maximumAbsences,
            account.absences.allSatisfy({ $0.removedAtUnixMilliseconds <= $0.restoredAtUnixMilliseconds })
        else { throw StoredValues.corrupt("an account's removals are out of order or too many") }
        return account
    }

    private static func stored(_ session: Session) -> WaterArchiveV1.StoredSession {
        WaterArchiveV1.StoredSession(
            tokenDigest: session.digest.bytes, memberID: session.memberID,
            expiresAtUnixMs: session.expiresAtUnixMilliseconds)
    }

    private static func session(_ stored: WaterArchiveV1.StoredSession?) throws(ArchiveError) -> Session {
        guard let stored, let digest = TokenDigest(bytes: stored.tokenDigest) else {
            throw StoredValues.corrupt("a session is missing or its digest is not 32 bytes")
        }
        return Session(digest: digest, memberID: stored.memberID, expiresAtUnixMilliseconds: stored.expiresAtUnixMs)
    }

    private static func stored(_ link: WallLink) -> WaterArchiveV1.StoredWallLink {
        WaterArchiveV1.StoredWallLink(
            tokenDigest: link.digest.bytes, madeBy: link.madeBy, madeAtUnixMs: link.madeAtUnixMilliseconds,
            label: link.label)
    }

    private static func wallLink(_ stored: WaterArchiveV1.StoredWallLink?) throws(ArchiveError) -> WallLink {
        guard let stored, let digest = TokenDigest(bytes: stored.tokenDigest) else {
            throw StoredValues.corrupt("a wall link is missing or its digest is not 32 bytes")
        }
        return WallLink(
            digest: digest, madeBy: stored.madeBy, madeAtUnixMilliseconds: stored.madeAtUnixMs, label: stored.label)
    }
}
