import WaterCore
import WaterProtocol
import WaterStore

extension Router {
    /// `water.v1.Accounts`: login and sessions for everyone; members for admins.
    mutating func registerAccounts() {
        unary(WaterV1.LoginRequest.self, .anyone) { request, context, reply in
            login(request, context, reply)
        }

        unary(WaterV1.LogoutRequest.self, .member) { _, context, reply in
            let digest = context.caller!.digest
            context.commit(
                context.store.accounts, { _ in [.sessionEnded(digest)] },
                result: { _ in WaterV1.LogoutResponse() }, reply: reply)
        }

        immediate(WaterV1.WhoAmIRequest.self, .member) { _, context throws(WaterError) in
            let session = try context.read(context.store.accounts) { $0.sessions[context.caller!.digest] }
            return WaterV1.WhoAmIResponse(
                member: Wire.member(context.account),
                sessionExpiresAtUnixMs: session?.expiresAtUnixMilliseconds ?? 0)
        }

        unary(WaterV1.ChangePasswordRequest.self, .member) { request, context, reply in
            changePassword(request, context, reply)
        }

        unary(WaterV1.AddMemberRequest.self, .admin) { request, context, reply in
            addMember(request, context, reply)
        }

        unary(WaterV1.RenameMemberRequest.self, .admin) { request, context, reply in
            let newUsername = request.newUsername.isEmpty ? nil : request.newUsername
            let newDisplayName = request.newDisplayName.isEmpty ? nil : request.newDisplayName
            context.commit(
                context.store.accounts,
                { book in
                    [
                        try book.validateRename(
                            request.username, newUsername: newUsername, newDisplayName: newDisplayName)
                    ]
                },
                result: { book in
                    WaterV1.RenameMemberResponse(
                        member: book.account(named: newUsername ?? request.username).map(Wire.member))
                }, reply: reply)
        }

        unary(WaterV1.ResetPasswordRequest.self, .admin) { request, context, reply in
            resetPassword(request, context, reply)
        }

        unary(WaterV1.RemoveMemberRequest.self, .admin) { request, context, reply in
            context.commit(
                context.store.accounts,
                { book in
                    let member = try book.existing(request.username)
                    if member.role == .admin, book.members.filter({ $0.role == .admin }).count == 1 {
                        throw WaterError(
                            .failedPrecondition, "\(member.username) is the last admin; make another admin first")
                    }
                    // The archive stays on disk: removing a member never deletes data.
                    return [.removed(memberID: member.id)]
                }, result: { _ in WaterV1.RemoveMemberResponse() }, reply: reply)
        }

        immediate(WaterV1.ListMembersRequest.self, .member) { _, context throws(WaterError) in
            WaterV1.ListMembersResponse(
                members: try context.read(context.store.accounts) { $0.members.map(Wire.member) })
        }
    }
}

private let outOfMemory = WaterError(.resourceExhausted, "the server is short of memory for a password hash; try again")

private func checkNewPassword(_ password: String, field: String) -> WaterError? {
    do {
        try AccountBook.checkPassword(password, field: field)
        return nil
    } catch {
        return WaterError(error)
    }
}

/// A new password ends every session of the member; the caller's goes on with a new token.
private func changePassword(
    _ request: WaterV1.ChangePasswordRequest, _ context: CallContext,
    _ reply: @escaping @Sendable (Result<WaterV1.ChangePasswordResponse, WaterError>) -> Void
) {
    if let error = checkNewPassword(request.newPassword, field: "new_password") { return reply(.failure(error)) }
    let account = context.account
    context.services.hasher.verify(request.currentPassword, against: account.passwordHash) { matches in
        guard matches else { return reply(.failure(WaterError(.unauthenticated, "the current password is wrong"))) }
        context.services.hasher.hash(request.newPassword) { hash in
            guard let hash else { return reply(.failure(outOfMemory)) }
            let (token, session) = newSession(for: account.id, now: context.now)
            context.commit(
                context.store.accounts,
                { _ in [.passwordSet(memberID: account.id, hash: hash), .sessionStarted(session)] },
                result: { _ in
                    WaterV1.ChangePasswordResponse(authToken: token, expiresAtUnixMs: session.expiresAtUnixMilliseconds)
                },
                reply: reply)
        }
    }
}

private func resetPassword(
    _ request: WaterV1.ResetPasswordRequest, _ context: CallContext,
    _ reply: @escaping @Sendable (Result<WaterV1.ResetPasswordResponse, WaterError>) -> Void
) {
    if let error = checkNewPassword(request.newPassword, field: "new_password") { return reply(.failure(error)) }
    let member: Account
    do throws(WaterError) {
        member = try context.read(context.store.accounts) { try $0.existing(request.username) }
    } catch {
        return reply(.failure(error))
    }
    context.services.hasher.hash(request.newPassword) { hash in
        guard let hash else { return reply(.failure(outOfMemory)) }
        context.commit(
            context.store.accounts, { _ in [.passwordSet(memberID: member.id, hash: hash)] },
            result: { _ in WaterV1.ResetPasswordResponse() }, reply: reply)
    }
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

/// Login: throttled per username, the same answer and about the same time for an unknown
/// user as for a wrong password, a new random token of which only the digest is stored.
private func login(
    _ request: WaterV1.LoginRequest, _ context: CallContext,
    _ reply: @escaping @Sendable (Result<WaterV1.LoginResponse, WaterError>) -> Void
) {
    let services = context.services
    let username = request.username
    if services.store.accounts.protection != nil { return reply(.failure(.accountsUnreadable)) }
    if let retry = services.throttle.retryAfter(username, now: context.now) {
        let seconds = (retry - context.now + 999) / 1000
        return reply(
            .failure(
                WaterError(.resourceExhausted, "too many failed logins for \(username); try again in \(seconds) s")))
    }
    let account = try? context.read(services.store.accounts) { $0.account(named: username) }
    let hash = account?.passwordHash ?? services.hasher.decoyHash
    services.hasher.verify(request.password, against: hash) { matches in
        guard matches, let account else {
            services.throttle.failed(username, now: context.now)
            services.logger.info("login failed", ["user.name": String(username.prefix(32)), "peer": context.peer])
            return reply(.failure(WaterError(.unauthenticated, "wrong username or password")))
        }
        services.throttle.succeeded(username)
        let (token, session) = newSession(for: account.id, now: context.now)
        context.commit(
            services.store.accounts,
            { book in
                // Logging in also forgets this member's expired sessions.
                let expired = book.sessions.values.filter {
                    $0.memberID == account.id && $0.expiresAtUnixMilliseconds <= context.now
                }
                return expired.map { .sessionEnded($0.digest) } + [.sessionStarted(session)]
            },
            result: { _ in
                WaterV1.LoginResponse(
                    authToken: token, expiresAtUnixMs: session.expiresAtUnixMilliseconds,
                    member: Wire.member(account))
            }, reply: reply)
    }
}

private func addMember(
    _ request: WaterV1.AddMemberRequest, _ context: CallContext,
    _ reply: @escaping @Sendable (Result<WaterV1.AddMemberResponse, WaterError>) -> Void
) {
    if let error = checkNewPassword(request.password, field: "password") { return reply(.failure(error)) }
    let zoneName =
        request.timeZone.isEmpty ? context.services.configuration.householdTimeZone.identifier : request.timeZone
    guard let zone = MemberTimeZone(identifier: zoneName) else {
        return reply(
            .failure(
                .invalidField("time_zone", "\"\(zoneName)\" is not a time zone this server knows (try Europe/Berlin)")))
    }
    let role: Role = request.role == .admin ? .admin : .member
    guard request.role == .admin || request.role == .member || request.role == .unspecified else {
        return reply(.failure(.invalidField("role", "must be ROLE_MEMBER or ROLE_ADMIN")))
    }
    do throws(WaterError) {
        // Check the name before spending a password hash on it.
        _ = try context.read(context.store.accounts) { book in
            try book.validateAdd(
                username: request.username, displayName: request.displayName, role: role,
                timeZone: zone, passwordHash: "", now: context.now)
        }
    } catch {
        return reply(.failure(error))
    }
    context.services.hasher.hash(request.password) { hash in
        guard let hash else { return reply(.failure(outOfMemory)) }
        context.commit(
            context.store.accounts,
            { book in
                let mutation = try book.validateAdd(
                    username: request.username, displayName: request.displayName,
                    role: role, timeZone: zone, passwordHash: hash, now: context.now)
                guard case .added(let account) = mutation else { return [] }
                // The archive exists before the account does, so a member can never log in
                // without one; an archive left by a failed add is simply reused. (Only its folder
                // is made here: never wait for a commit while holding another archive's lock.)
                _ = try context.store.createMember(account.id)
                return [mutation]
            },
            result: { book in
                book.account(named: request.username)
            },
            reply: { outcome in
                guard case .success(let account?) = outcome, let archive = context.store.member(account.id) else {
                    return reply(outcome.map { WaterV1.AddMemberResponse(member: $0.map(Wire.member)) })
                }
                // The member's days follow their own zone from the first drink.
                context.commit(
                    archive, { _ in [.water(.timeZoneSet(zone))] },
                    result: { _ in WaterV1.AddMemberResponse(member: Wire.member(account)) }, reply: reply)
            })
    }
}
