import WaterCore
import WaterProtocol
import WaterStore

/// The member a call acts for (`for_member`), and who acts: the one place that decides whether
/// a caller may act for someone else. Every handler that takes `for_member` goes through
/// ``ArchiveAccess/actingFor(_:_:)``.
struct ActingMember: Sendable {
    /// Whose archive the call reads or changes.
    let member: Account
    /// Who made the call.
    let caller: Account

    /// 0 when the member acts for themselves; otherwise the caller's id, which entries made for
    /// the member record (``WaterEntry/madeBy``).
    var madeBy: UInt64 { member.id == caller.id ? 0 : caller.id }

    /// The rule: anyone for themselves, an admin for anyone, a guardian for their child.
    static func may(_ caller: Account, actFor member: Account) -> Bool {
        caller.id == member.id || caller.role == .admin || member.guardians.contains(caller.id)
    }
}

extension ArchiveAccess {
    /// Who a call acts for: the caller when `forMember` is empty (what every client from before
    /// `for_member` sends) or names them; otherwise the member named, when the caller may act
    /// for them (``ActingMember/may(_:actFor:)``).
    /// - Throws: PERMISSION_DENIED when the caller may not (also for a name nobody has, unless
    ///   the caller is an admin, who is told NOT_FOUND).
    func actingFor(_ call: CallContext, _ forMember: String) throws(WaterError) -> ActingMember {
        let caller = call.account
        guard !forMember.isEmpty, forMember != caller.username else {
            return ActingMember(member: caller, caller: caller)
        }
        let member = try read(accounts) { $0.account(named: forMember) }
        guard let member, ActingMember.may(caller, actFor: member) else {
            if member == nil, caller.role == .admin {
                // Only a name that could be a username is repeated back (as AccountBook.existing does).
                let named = AccountBook.isValidUsername(forMember) ? forMember : "that"
                throw WaterError(.notFound, "there is no member called \(named)")
            }
            throw WaterError(
                .permissionDenied,
                "you may act only for yourself and for children you are a guardian of; an admin can make you "
                    + "one (member guardian CHILD add \(caller.username))")
        }
        return ActingMember(member: member, caller: caller)
    }

    /// The archive of the member a call acts for.
    func archive(of acting: ActingMember) throws(WaterError) -> Archive<MemberArchive> {
        guard let archive = store.member(acting.member.id) else {
            throw WaterError(
                .internal, "\(acting.member.username)'s archive is missing; ask an admin to run water-server check")
        }
        return archive
    }

    /// Usernames of who made `entries` for their owner, by member id; empty (and no read of the
    /// accounts) when the owner made them all. Removed members keep their names.
    func makers(of entries: some Sequence<WaterEntry>) -> [UInt64: String] {
        entries.contains(where: { $0.madeBy != 0 }) ? usernames() : [:]
    }

    /// Every username by member id, removed members' too: who made an entry stays named.
    func usernames() -> [UInt64: String] {
        (try? accounts.read { book in
            book.removedAccounts.mapValues(\.username).merging(book.accounts.mapValues(\.username)) { $1 }
        }) ?? [:]
    }
}
