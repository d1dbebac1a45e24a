import WaterCore
import WaterLog
import WaterProtocol
import WaterStore

/// `water.v1.Accounts`: login and sessions for everyone; members for admins.
struct AccountService: Service {
    let archives: ArchiveAccess
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// A new member's zone when the request names none.
    let householdTimeZone: MemberTimeZone
    /// Where a requested zone is found.
    let timeZones: any TimeZoneSource
    /// Where failed logins and refused password changes are logged, within its rate limit.
    let peerLog: PeerLog

    func register(in router: inout Router) {
        router.later(.anyone, login)
        router.later(.member, logout, changePassword)
        router.onLoop(.member, whoAmI, listMembers)
        router.later(.admin, addMember, renameMember, resetPassword, removeMember, restoreMember)
        router.onLoop(.admin, setGuardian, setRole)
    }

    /// Login: throttled per username and address and per address (``LoginThrottle``), hashed in
    /// its address's turn (``FairQueue``), the same answer and the same cost for an unknown user
    /// as for a wrong password, a new random token of which only the digest is stored.
    func login(_ request: WaterV1.LoginRequest, _ call: CallContext, reply: @escaping Reply<WaterV1.LoginResponse>)
        throws(WaterError)
    {
        let (username, password) = (request.username, request.password)
        if archives.accounts.protection != nil { throw .accountsUnreadable }
        try refuseWhileThrottled(username, call)
        let (account, cost) =
            (try? archives.read(archives.accounts) { book in
                (book.account(named: username), hasher.loginCost(storedHashes: book.members.lazy.map(\.passwordHash)))
            }) ?? (nil, hasher.cost)
        try hasher.submit(from: call.peerHost, lane: username) {
            guard let attempt = admit(username, call, reply: reply) else { return }
            // A member with no password (a child) is checked as a name nobody has: the same
            // work, the same answer.
            let stored = account.flatMap { $0.hasPassword ? $0.passwordHash : nil }
            let matches = hasher.checkLogin(password, against: stored, cost: cost)
            throttle.settle(attempt, succeeded: matches && account != nil)
            guard matches, let account else {
                peerLog.log(
                    .info, "login failed", from: call.peerHost,
                    ["user.name": boundedPeerText(username, limit: 32), "peer": call.peer])
                // Only a child's name hears of children: any other wrong login reads the same,
                // known name or not.
                return reply(
                    .failure(
                        WaterError(
                            .unauthenticated,
                            account?.isChild == true
                                ? "wrong username or password: \(username) is a child, who can log in only once an "
                                    + "admin has given them a password (water-client member reset \(username))"
                                : "wrong username or password")))
            }
            let (token, session) = newSession(for: account.id, now: call.now)
            replying(reply) { () throws(WaterError) in
                try archives.commit(
                    archives.accounts,
                    { book in
                        // Logging in also forgets this member's expired sessions, and removed
                        // members' expired ones (kept only to tell a removed member why): so
                        // neither grows with time.
                        let expired =
                            book.sessions.values.filter {
                                $0.memberID == account.id && $0.expiresAtUnixMilliseconds <= call.now
                            }
                            + book.removedSessions.values.filter { $0.expiresAtUnixMilliseconds <= call.now }
                        return Decision(expired.map { .sessionEnded($0.digest) } + [.sessionStarted(session)])
                    },
                    result: { _, _ in
                        WaterV1.LoginResponse(
                            authToken: token, expiresAtUnixMs: session.expiresAtUnixMilliseconds,
                            member: Wire.member(account))
                    }, reply: reply)
            }
        }
    }

    func logout(_ request: WaterV1.LogoutRequest, _ call: CallContext, reply: @escaping Reply<WaterV1.LogoutResponse>)
        throws(WaterError)
    {
        let digest = call.caller!.digest
        try archives.commit(
            archives.accounts, { _ in Decision([.sessionEnded(digest)]) },
            result: { _, _ in WaterV1.LogoutResponse() }, reply: reply)
    }

    func whoAmI(_ request: WaterV1.WhoAmIRequest, _ call: CallContext) throws(WaterError) -> WaterV1.WhoAmIResponse {
        let (session, member) = try archives.read(archives.accounts) { book in
            (book.sessions[call.caller!.digest], Wire.member(call.account, in: book))
        }
        // A protected archive is on no board: whoami still answers.
        let privacy = (try? archives.read(try archives.own(call)) { $0.privacy }) ?? .full
        return WaterV1.WhoAmIResponse(
            member: member, sessionExpiresAtUnixMs: session?.expiresAtUnixMilliseconds ?? 0,
            privacy: Wire.privacy(privacy))
    }

    /// A new password ends every session of the member; the caller's goes on with a new token.
    /// The current password is throttled as a login is (per username and address, pipelined
    /// ones checked one at a time): a stolen token does not make guessing the password cheaper.
    func changePassword(
        _ request: WaterV1.ChangePasswordRequest, _ call: CallContext,
        reply: @escaping Reply<WaterV1.ChangePasswordResponse>
    ) throws(WaterError) {
        try checkNewPassword(request.newPassword, field: "new_password")
        let account = call.account
        try refuseWhileThrottled(account.username, call)
        try hasher.submit(from: call.peerHost, lane: account.username) {
            guard let attempt = admit(account.username, call, reply: reply) else { return }
            let matches = hasher.verifyNow(request.currentPassword, against: account.passwordHash)
            throttle.settle(attempt, succeeded: matches)
            guard matches else {
                peerLog.log(
                    .info, "password change refused", from: call.peerHost,
                    ["user.name": account.username, "peer": call.peer])
                return reply(.failure(WaterError(.unauthenticated, "the current password is wrong")))
            }
            replying(reply) { () throws(WaterError) in
                try hasher.submit(from: call.peerHost) {
                    guard let hash = hasher.hashNow(request.newPassword) else { return reply(.failure(outOfMemory)) }
                    let (token, session) = newSession(for: account.id, now: call.now)
                    replying(reply) { () throws(WaterError) in
                        try archives.commit(
                            archives.accounts,
                            { _ in
                                Decision([.passwordSet(memberID: account.id, hash: hash), .sessionStarted(session)])
                            },
                            result: { _, _ in
                                WaterV1.ChangePasswordResponse(
                                    authToken: token, expiresAtUnixMs: session.expiresAtUnixMilliseconds)
                            }, reply: reply)
                    }
                }
            }
        }
    }

    /// Adds a member: the name is checked before a password hash is spent on it; the member's
    /// days follow their own zone from the first drink.
    func addMember(
        _ request: WaterV1.AddMemberRequest, _ call: CallContext, reply: @escaping Reply<WaterV1.AddMemberResponse>
    ) throws(WaterError) {
        if request.child {
            guard request.password.isEmpty else {
                throw .invalidField("password", "a child is added without a password (an admin sets one later)")
            }
        } else {
            try checkNewPassword(request.password, field: "password")
        }
        let zoneName = request.timeZone.isEmpty ? householdTimeZone.identifier : request.timeZone
        guard let zone = timeZones.zone(named: zoneName) else {
            throw .unknownTimeZone(zoneName)
        }
        guard request.role == .admin || request.role == .member || request.role == .unspecified else {
            throw .invalidField("role", "a role must be ROLE_MEMBER or ROLE_ADMIN")
        }
        let role: Role = request.role == .admin ? .admin : .member
        _ = try archives.read(archives.accounts) { book in
            try book.validateAdd(
                username: request.username, displayName: request.displayName, role: role,
                timeZone: zone, passwordHash: "", now: call.now, isChild: request.child)
        }
        let (archives, hasher) = (self.archives, self.hasher)
        try hasher.submit(from: call.peerHost) {
            // A child has no password, so no hash is spent.
            guard let hash = request.child ? "" : hasher.hashNow(request.password) else {
                return reply(.failure(outOfMemory))
            }
            replying(reply) { () throws(WaterError) in
                try archives.commit(
                    archives.accounts,
                    { book -> Decision<AccountMutation, Account?> in
                        let mutation = try book.validateAdd(
                            username: request.username, displayName: request.displayName,
                            role: role, timeZone: zone, passwordHash: hash, now: call.now, isChild: request.child)
                        guard case .added(let account) = mutation else { return Decision([], note: nil) }
                        // The archive exists before the account does, so a member can never log
                        // in without one; an archive left by a failed add is simply reused. (Only
                        // its folder is made here: never wait for a commit while holding another
                        // archive's lock.)
                        _ = try archives.store.createMember(account.id)
                        return Decision([mutation], note: account)
                    },
                    result: { _, added in added },
                    reply: { outcome in
                        guard case .success(let account?) = outcome else {
                            return reply(outcome.map { WaterV1.AddMemberResponse(member: $0.map { Wire.member($0) }) })
                        }
                        replying(reply) { () throws(WaterError) in
                            guard let archive = archives.store.member(account.id) else {
                                throw WaterError(.internal, "the new member's archive is missing")
                            }
                            try archives.commit(
                                archive, { _ in Decision([.water(.timeZoneSet(zone, movedAtUnixMilliseconds: nil))]) },
                                result: { _, _ in WaterV1.AddMemberResponse(member: Wire.member(account)) },
                                reply: reply)
                        }
                    })
            }
        }
    }

    func renameMember(
        _ request: WaterV1.RenameMemberRequest, _ call: CallContext,
        reply: @escaping Reply<WaterV1.RenameMemberResponse>
    ) throws(WaterError) {
        let newUsername = request.newUsername.isEmpty ? nil : request.newUsername
        let newDisplayName = request.newDisplayName.isEmpty ? nil : request.newDisplayName
        try archives.commit(
            archives.accounts,
            { book in
                Decision([
                    try book.validateRename(request.username, newUsername: newUsername, newDisplayName: newDisplayName)
                ])
            },
            result: { book, _ in
                WaterV1.RenameMemberResponse(
                    member: book.account(named: newUsername ?? request.username).map { Wire.member($0, in: book) })
            }, reply: reply)
    }

    func resetPassword(
        _ request: WaterV1.ResetPasswordRequest, _ call: CallContext,
        reply: @escaping Reply<WaterV1.ResetPasswordResponse>
    ) throws(WaterError) {
        try checkNewPassword(request.newPassword, field: "new_password")
        let member = try archives.read(archives.accounts) { try $0.existing(request.username) }
        let (archives, hasher) = (self.archives, self.hasher)
        try hasher.submit(from: call.peerHost) {
            guard let hash = hasher.hashNow(request.newPassword) else { return reply(.failure(outOfMemory)) }
            replying(reply) { () throws(WaterError) in
                try archives.commit(
                    archives.accounts, { _ in Decision([.passwordSet(memberID: member.id, hash: hash)]) },
                    result: { _, _ in WaterV1.ResetPasswordResponse() }, reply: reply)
            }
        }
    }

    /// Removes a member's account; the archive stays on disk: removing a member never deletes data,
    /// and ``restoreMember(_:_:reply:)`` brings it back.
    func removeMember(
        _ request: WaterV1.RemoveMemberRequest, _ call: CallContext,
        reply: @escaping Reply<WaterV1.RemoveMemberResponse>
    ) throws(WaterError) {
        try archives.commit(
            archives.accounts,
            { book in Decision([try book.validateRemoval(request.username, now: call.now)]) },
            result: { _, _ in WaterV1.RemoveMemberResponse() }, reply: reply)
    }

    /// Brings back a removed member: their account as it was (same id, same password, no
    /// sessions) and so their archive, which removing left on disk. A folder gone missing
    /// meanwhile is made again, empty, as for a new member.
    func restoreMember(
        _ request: WaterV1.RestoreMemberRequest, _ call: CallContext,
        reply: @escaping Reply<WaterV1.RestoreMemberResponse>
    ) throws(WaterError) {
        try archives.commit(
            archives.accounts,
            { book -> Decision<AccountMutation, Account?> in
                let mutation = try book.validateRestore(request.username, now: call.now)
                guard case .added(let account) = mutation else { return Decision([], note: nil) }
                _ = try archives.store.createMember(account.id)
                return Decision([mutation], note: account)
            }, result: { _, restored in WaterV1.RestoreMemberResponse(member: restored.map { Wire.member($0) }) },
            reply: reply)
    }

    /// The household's members, or (`removed`, admins only) the removed ones, as they were.
    func listMembers(_ request: WaterV1.ListMembersRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListMembersResponse
    {
        if request.removed && call.account.role != .admin {
            throw WaterError(.permissionDenied, "only admins see the removed members")
        }
        return WaterV1.ListMembersResponse(
            members: try archives.read(archives.accounts) { book in
                (request.removed ? book.removedMembers : book.members).map { Wire.member($0, in: book) }
            })
    }

    /// Adds or removes a guardian of a child; repeating either changes nothing.
    func setGuardian(_ request: WaterV1.SetGuardianRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.SetGuardianResponse
    {
        try archives.commitReturning(
            for: call,
            archives.accounts,
            { book in
                Decision(
                    (try book.validateGuardian(
                        child: request.username, guardian: request.guardian, remove: request.remove)).map { [$0] } ?? []
                )
            },
            result: { book, _ in
                WaterV1.SetGuardianResponse(
                    member: book.account(named: request.username).map { Wire.member($0, in: book) })
            })
    }

    /// Makes a member an admin or an admin a member (never the last admin).
    func setRole(_ request: WaterV1.SetRoleRequest, _ call: CallContext) throws(WaterError) -> WaterV1.SetRoleResponse {
        guard request.role == .admin || request.role == .member else {
            throw .invalidField("role", "a role must be ROLE_MEMBER or ROLE_ADMIN")
        }
        let role: Role = request.role == .admin ? .admin : .member
        return try archives.commitReturning(
            for: call,
            archives.accounts,
            { book in Decision((try book.validateRole(request.username, role: role)).map { [$0] } ?? []) },
            result: { book, _ in
                WaterV1.SetRoleResponse(member: book.account(named: request.username).map { Wire.member($0, in: book) })
            })
    }
}

private let outOfMemory = WaterError(.resourceExhausted, "the server is short of memory for a password hash; try again")

private func checkNewPassword(_ password: String, field: String) throws(WaterError) {
    do {
        try AccountBook.checkPassword(password, field: field)
    } catch {
        throw WaterError(error)
    }
}

/// Runs the next step of a handler that continues after a password hash: a refusal it throws
/// is the call's answer.
private func replying<Response>(_ reply: Reply<Response>, _ step: () throws(WaterError) -> Void) {
    do throws(WaterError) { try step() } catch { reply(.failure(error)) }
}

/// A random token for the client and the session that stores only its digest.
private func newSession(for memberID: UInt64, now: Int64) -> (token: [UInt8], session: Session) {
    let token = SessionTokens.make()
    return (
        token,
        Session(
            digest: SessionTokens.digest(of: token)!, memberID: memberID,
            expiresAtUnixMilliseconds: now + SessionTokens.lifetimeMilliseconds)
    )
}
