import WaterCore
import WaterProtocol
import WaterStore

extension ArchiveAccess {
    /// The member a request names (empty: the caller) and their archive, when the caller may
    /// act for them. The one place that decides it: the caller themselves, or an admin for
    /// anyone (a child's guardians join here).
    /// - Throws: PERMISSION_DENIED for anyone else, before saying whether the member exists;
    ///   NOT_FOUND, to an admin, for a member there is not.
    func member(_ username: String, actingFor call: CallContext) throws(WaterError)
        -> (account: Account, archive: Archive<MemberArchive>)
    {
        if username.isEmpty || username == call.account.username { return (call.account, try own(call)) }
        let target = try read(accounts) { $0.account(named: username) }
        guard call.account.role == .admin else {
            throw WaterError(
                .permissionDenied,
                "you may act only for yourself; an admin may act for \(target == nil ? "that member" : username)")
        }
        guard let target else {
            throw WaterError(.notFound, "there is no member called \(quotedPeerText(username))")
        }
        guard let archive = store.member(target.id) else {
            throw WaterError(.internal, "\(target.username)'s archive is missing; run water-server check")
        }
        return (target, archive)
    }
}
