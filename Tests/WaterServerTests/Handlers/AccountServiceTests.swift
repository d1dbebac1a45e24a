import Dispatch
import Testing
import WaterCore
import WaterProtocol
import WaterStore
import WaterSync
import WaterZoneInfo

@testable import WaterServer

/// `water.v1.Accounts`' handlers, called in process on a real store with real argon2id hashes.
@Suite("Account service")
struct AccountServiceTests {
    typealias H = HandlerHarness

    @Test("a wrong password and an unknown user get the same answer; the throttle then asks to wait")
    func failedLogins() throws {
        let h = try H()
        let wrong = h.call(h.accounts.login, WaterV1.LoginRequest(username: "ann", password: "nope nope"), as: nil)
        let unknown = h.call(
            h.accounts.login, WaterV1.LoginRequest(username: "nobody", password: H.password), as: nil)
        #expect(wrong.error?.code == .unauthenticated && unknown.error?.code == .unauthenticated)
        #expect(wrong.error?.message == unknown.error?.message)
        for _ in 1..<LoginThrottle.freeFailures {
            _ = h.call(h.accounts.login, WaterV1.LoginRequest(username: "nobody", password: "x"), as: nil)
        }
        let throttled = h.call(h.accounts.login, WaterV1.LoginRequest(username: "nobody", password: "x"), as: nil)
        #expect(throttled.error?.code == .resourceExhausted)
    }

    @Test("a device guessing a password slows only itself: the owner on another address logs in at once")
    func throttleByAddress() throws {
        let h = try H()
        let guess = WaterV1.LoginRequest(username: "ann", password: "a wrong guess")
        for _ in 0..<LoginThrottle.freeFailures {
            #expect(h.call(h.accounts.login, guess, as: nil, from: "192.168.1.66").error?.code == .unauthenticated)
        }
        let slowed = h.call(h.accounts.login, guess, as: nil, from: "192.168.1.66").error
        #expect(slowed?.code == .resourceExhausted && slowed?.message.contains("192.168.1.66") == true)
        // Even the right password waits on the guessing device...
        let right = WaterV1.LoginRequest(username: "ann", password: H.password)
        #expect(h.call(h.accounts.login, right, as: nil, from: "192.168.1.66").error?.code == .resourceExhausted)
        // ...but not on the owner's.
        #expect(try h.call(h.accounts.login, right, as: nil, from: "192.168.1.20").get().member?.username == "ann")
        // A device trying many names is slowed as a whole, for names it never tried before too.
        for index in 0..<LoginThrottle.freeFailuresPerAddress {
            _ = h.call(
                h.accounts.login, WaterV1.LoginRequest(username: "guess\(index)", password: "x"), as: nil,
                from: "10.0.0.9")
        }
        let scan = h.call(
            h.accounts.login, WaterV1.LoginRequest(username: "ann", password: "x"), as: nil, from: "10.0.0.9")
        #expect(scan.error?.code == .resourceExhausted)
        // Time heals: past the delay, the guessing device may try again.
        let later = H.monday + LoginThrottle.maximumDelayMilliseconds
        #expect(
            try h.call(h.accounts.login, right, as: nil, now: later, from: "192.168.1.66").get().authToken.count == 32)
    }

    @Test(
        "128 logins for one name pipelined from one address: 3 are hashed, the right password at #128 is refused, and the owner on another address logs in"
    )
    func pipelinedLogins() throws {
        let h = try H(concurrentHashes: 1)
        let release = try holdHashing(h.services.hasher)
        let answers = Locked<[Int: Result<WaterV1.LoginResponse, WaterError>]>([:])
        let done = DispatchGroup()
        func login(_ n: Int, _ password: String, from address: String) {
            done.enter()
            let reply: Reply<WaterV1.LoginResponse> = { result in
                answers.withLock { $0[n] = result }
                done.leave()
            }
            do throws(WaterError) {
                try h.accounts.login(
                    WaterV1.LoginRequest(username: "ann", password: password),
                    H.context(nil, now: H.monday, from: address), reply: reply)
            } catch {
                reply(.failure(error))
            }
        }
        for n in 1...127 { login(n, "guess number \(n)", from: "192.168.1.66") }
        login(128, H.password, from: "192.168.1.66")
        login(0, H.password, from: "192.168.1.20")
        release.signal()
        done.wait()
        let noisy = answers.withLock { $0 }.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map(\.value)
        #expect(noisy.filter { $0.error?.code == .unauthenticated }.count == LoginThrottle.freeFailures)
        #expect(noisy.filter { $0.error?.code == .resourceExhausted }.count == 128 - LoginThrottle.freeFailures)
        #expect(noisy.last?.error?.code == .resourceExhausted, "the right password at #128 does not log in")
        // Beyond the queue's bound for the address, refused at once; past the throttle, refused
        // in the queue without a hash.
        #expect(noisy.contains { $0.error?.message.contains("password checks from 192.168.1.66 are waiting") == true })
        #expect(noisy.contains { $0.error?.message.contains("too many wrong passwords for \"ann\"") == true })
        #expect(try answers.withLock { $0[0]! }.get().member?.username == "ann")
    }

    @Test("ChangePassword is throttled as logins are: three wrong current passwords, then even the right one waits")
    func changePasswordThrottled() throws {
        let h = try H()
        let caller = try h.login("ann")
        func change(_ current: String, from address: String) -> WaterError? {
            h.call(
                h.accounts.changePassword,
                WaterV1.ChangePasswordRequest(currentPassword: current, newPassword: "a new long password"),
                by: caller, from: address
            ).error
        }
        for n in 0..<LoginThrottle.freeFailures {
            #expect(change("guess number \(n)", from: "192.168.1.66")?.code == .unauthenticated)
        }
        #expect(change(H.password, from: "192.168.1.66")?.code == .resourceExhausted)
        // Login and ChangePassword share the count: logins from there wait too.
        let login = h.call(
            h.accounts.login, WaterV1.LoginRequest(username: "ann", password: H.password), as: nil,
            from: "192.168.1.66")
        #expect(login.error?.code == .resourceExhausted)
        #expect(change(H.password, from: "192.168.1.20") == nil)
    }

    @Test("a login's token opens a session that WhoAmI sees and Logout ends")
    func sessionLifecycle() throws {
        let h = try H()
        let caller = try h.login("ann")
        #expect(caller.account.id == h.admin.id)
        let me = try h.call(h.accounts.whoAmI, WaterV1.WhoAmIRequest(), by: caller).get()
        #expect(me.member?.username == "ann")
        #expect(me.sessionExpiresAtUnixMs == H.monday + SessionTokens.lifetimeMilliseconds)
        _ = try h.call(h.accounts.logout, WaterV1.LogoutRequest(), by: caller).get()
        let after = try h.call(h.accounts.whoAmI, WaterV1.WhoAmIRequest(), by: caller).get()
        #expect(after.sessionExpiresAtUnixMs == 0)
    }

    @Test("ChangePassword checks the current one, and the new one is the only one that logs in")
    func changePassword() throws {
        let h = try H()
        let caller = try h.login("ann")
        let refused = h.call(
            h.accounts.changePassword,
            WaterV1.ChangePasswordRequest(currentPassword: "not it at all", newPassword: "a new long password"),
            by: caller)
        #expect(refused.error?.code == .unauthenticated)
        let changed = try h.call(
            h.accounts.changePassword,
            WaterV1.ChangePasswordRequest(currentPassword: H.password, newPassword: "a new long password"), by: caller
        ).get()
        #expect(try h.services.authenticate(changed.authToken, now: H.monday).get().account.id == h.admin.id)
        let old = h.call(h.accounts.login, WaterV1.LoginRequest(username: "ann", password: H.password), as: nil)
        #expect(old.error?.code == .unauthenticated)
    }

    @Test("AddMember makes the archive before the account, in the household's zone unless one is named")
    func addMember() throws {
        let h = try H(householdTimeZone: ZoneInfo.system.zone(named: "Europe/Berlin")!)
        let bea = try h.addMember("bea")
        #expect(bea.timeZone.identifier == "Europe/Berlin")
        let zone = try h.services.store.member(bea.id)!.read { $0.water.timeZone.identifier }
        #expect(zone == "Europe/Berlin")
        let cal = try h.addMember("cal", timeZone: "Asia/Tokyo")
        #expect(try h.services.store.member(cal.id)!.read { $0.water.timeZone.identifier } == "Asia/Tokyo")
    }

    @Test(
        "a refused AddMember names the field and adds no one",
        arguments: [
            (WaterV1.AddMemberRequest(username: "dan", password: "short"), "password"),
            (WaterV1.AddMemberRequest(username: "dan", password: H.password, timeZone: "Mars/Olympus"), "time_zone"),
            (WaterV1.AddMemberRequest(username: "ann", password: H.password), "username"),
        ])
    func refusedAdd(request: WaterV1.AddMemberRequest, field: String) throws {
        let h = try H()
        let error = try #require(h.call(h.accounts.addMember, request, as: h.admin).error)
        #expect(error.violations.map(\.field) == [field])
        #expect(try h.services.store.accounts.read { $0.members.count } == 1)
    }

    @Test("the last admin cannot be removed; a member can, and their archive stays")
    func removeMember() throws {
        let h = try H()
        let last = h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "ann"), as: h.admin)
        #expect(last.error?.code == .failedPrecondition)
        #expect(last.error?.violations.map(\.field) == ["username"])
        let bea = try h.addMember("bea")
        _ = try h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "bea"), as: h.admin).get()
        let members = try h.call(h.accounts.listMembers, WaterV1.ListMembersRequest(), as: h.admin).get()
        #expect(members.members.map(\.username) == ["ann"])
        #expect(h.services.store.member(bea.id) != nil)
    }

    @Test("a removed member's sessions are kept to tell them why, and forgotten at a login once they have expired")
    func removedSessionsForgotten() throws {
        let h = try H()
        _ = try h.addMember("bea")
        _ = try h.login("bea")
        _ = try h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "bea"), as: h.admin).get()
        #expect(try h.services.store.accounts.read { $0.removedSessions.count } == 1)
        // A login before they expire keeps them; one after forgets them.
        _ = try h.login(h.admin.username)
        #expect(try h.services.store.accounts.read { $0.removedSessions.count } == 1)
        _ = try h.login(h.admin.username, now: H.monday + SessionTokens.lifetimeMilliseconds + 1)
        #expect(try h.services.store.accounts.read { $0.removedSessions.count } == 0)
    }
}
