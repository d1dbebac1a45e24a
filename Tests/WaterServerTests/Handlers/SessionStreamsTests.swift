import Dispatch
import Testing
import WaterCore
import WaterProtocol
import WaterSync

@testable import WaterServer

/// The streams of each session, ended with it, with no connection: each stream is a responder
/// that records how it was ended (issue 31 item 3).
@Suite("Session streams")
struct SessionStreamsTests {
    typealias H = HandlerHarness

    /// A responder for one stream: what it was ended with, and its cancel (which the connection
    /// runs when the call ends, by the server's end or the client's cancel).
    final class Stream: Sendable {
        let endings = Locked<[WaterError]>([])
        let cancels = Locked<[@Sendable () -> Void]>([])
        let ended = DispatchSemaphore(value: 0)

        var responder: Responder {
            var responder = Responder(
                callID: 3, method: WaterV1.WatchBoardRequest.method.fullName, deliver: { _, _ in },
                deliverFramed: { _, _ in }, writer: FrameWriter(maximumPayloadLength: 1 << 20),
                onCancel: { [cancels] cancel in cancels.withLock { $0.append(cancel) } })
            responder.ending = { [self] error in
                endings.withLock { $0.append(error) }
                cancel()
                ended.signal()
            }
            return responder
        }

        /// Runs the call's cancel handlers, as the connection does when it ends.
        func cancel() {
            for cancel in cancels.withLock({ $0 }) { cancel() }
        }
    }

    /// A call of `caller`'s.
    static func call(_ caller: Caller) -> CallContext {
        HandlerHarness.context(caller, now: 0, from: "127.0.0.1")
    }

    static func caller(_ id: UInt64, session: UInt8, expires: Int64 = .max) -> Caller {
        Caller(
            account: Account(
                id: id, username: "m\(id)", displayName: "m\(id)", role: .member, timeZone: .utc, passwordHash: "",
                createdAtUnixMilliseconds: 0),
            digest: TokenDigest(bytes: [UInt8](repeating: session, count: 32))!, expiresAtUnixMilliseconds: expires)
    }

    @Test(
        "a session's end ends its streams with UNAUTHENTICATED, once; a member's end ends all of theirs; others go on")
    func endedBySessionAndMember() {
        let streams = SessionStreams(now: { 0 })
        let (a1, a2, b, c) = (Stream(), Stream(), Stream(), Stream())
        streams.tie(a1.responder, to: Self.call(Self.caller(1, session: 1)))
        streams.tie(a2.responder, to: Self.call(Self.caller(1, session: 2)))
        streams.tie(b.responder, to: Self.call(Self.caller(2, session: 3)))
        streams.tie(c.responder, to: Self.call(Self.caller(3, session: 4)))
        #expect(streams.count == 4)

        streams.end(EndedSessions(sessions: [Self.caller(1, session: 1).digest]))
        #expect(a1.endings.withLock { $0 } == [SessionStreams.sessionEnded])
        #expect(a1.endings.withLock { $0 }.first?.message == "your session ended: run water-client login")
        #expect(a2.endings.withLock { $0 }.isEmpty && streams.count == 3)

        streams.end(EndedSessions(members: [1, 2]))
        #expect(a2.endings.withLock { $0 }.count == 1 && b.endings.withLock { $0 }.count == 1)
        #expect(a1.endings.withLock { $0 }.count == 1, "ended once")
        #expect(c.endings.withLock { $0 }.isEmpty && streams.count == 1)

        // A call that ended otherwise leaves the list, and its session's end does not touch it.
        c.cancel()
        #expect(streams.count == 0)
        streams.end(EndedSessions(members: [3]))
        #expect(c.endings.withLock { $0 }.isEmpty)
    }

    @Test("a stream whose session ended before it was listed ends at once and is not kept")
    func endedBeforeListed() {
        let streams = SessionStreams(now: { 0 }, isLive: { _, _ in false })
        let late = Stream()
        streams.tie(late.responder, to: Self.call(Self.caller(1, session: 1)))
        #expect(late.endings.withLock { $0 } == [SessionStreams.sessionEnded])
        #expect(streams.count == 0)
    }

    @Test("an expired session's streams end, at its expiry by the timer, and no sooner")
    func expiry() {
        let clock = Locked<Int64>(1_000)
        let streams = SessionStreams(now: { clock.withLock { $0 } })
        let (soon, later) = (Stream(), Stream())
        streams.tie(soon.responder, to: Self.call(Self.caller(1, session: 1, expires: 1_050)))
        streams.tie(later.responder, to: Self.call(Self.caller(2, session: 2, expires: 5_000)))
        streams.endExpired()
        #expect(soon.endings.withLock { $0 }.isEmpty && streams.count == 2)
        // The timer fires after 50 ms of Dispatch's clock; it ends the stream only once the
        // server's clock says so.
        clock.withLock { $0 = 1_050 }
        #expect(soon.ended.wait(timeout: .now() + 30) == .success)
        #expect(soon.endings.withLock { $0 } == [SessionStreams.sessionEnded])
        #expect(later.endings.withLock { $0 }.isEmpty && streams.count == 1)
    }

    @Test(
        "through the handlers: Logout, ChangePassword, a reset and a removal end the streams of the sessions they end")
    func throughTheHandlers() throws {
        let h = try H()
        _ = try h.addMember("bea")
        func session(_ username: String, _ password: String) throws -> (Caller, Stream) {
            let login = try h.call(
                h.accounts.login, WaterV1.LoginRequest(username: username, password: password), as: nil
            ).get()
            // As the server resolves the token: the account as it is now, the session's expiry.
            let caller = try h.services.authenticate(login.authToken, now: H.monday).get()
            #expect(caller.expiresAtUnixMilliseconds == login.expiresAtUnixMs)
            let stream = Stream()
            h.services.sessionStreams.tie(stream.responder, to: H.context(caller, now: H.monday, from: "127.0.0.1"))
            return (caller, stream)
        }
        let (beaCaller, logout) = try session("bea", H.password)
        let (_, other) = try session("bea", H.password)
        let (_, ann) = try session("ann", H.password)
        _ = try h.call(h.accounts.logout, WaterV1.LogoutRequest(), by: beaCaller).get()
        #expect(logout.endings.withLock { $0 } == [SessionStreams.sessionEnded])
        #expect(other.endings.withLock { $0 }.isEmpty)

        _ = try h.call(
            h.accounts.resetPassword, WaterV1.ResetPasswordRequest(username: "bea", newPassword: "bea-password-2"),
            as: h.admin
        ).get()
        #expect(other.endings.withLock { $0 }.count == 1)

        let (reLogin, changed) = try session("bea", "bea-password-2")
        _ = try h.call(
            h.accounts.changePassword,
            WaterV1.ChangePasswordRequest(currentPassword: "bea-password-2", newPassword: "bea-password-3"), by: reLogin
        ).get()
        #expect(changed.endings.withLock { $0 }.count == 1)

        let (_, removed) = try session("bea", "bea-password-3")
        _ = try h.call(h.accounts.removeMember, WaterV1.RemoveMemberRequest(username: "bea"), as: h.admin).get()
        #expect(removed.endings.withLock { $0 }.map(\.code) == [.permissionDenied], "told it was removed")
        #expect(ann.endings.withLock { $0 }.isEmpty, "the admin's own stream goes on")
        #expect(h.services.sessionStreams.count == 1)
    }
}

extension SessionStreamsTests {
    @Test("an Export ends with its session, paused or not; one that finishes by itself leaves nothing listed")
    func export() throws {
        let h = try H()
        let caller = try h.login("ann")
        let call = H.context(caller, now: H.monday, from: "127.0.0.1")
        let finished = DispatchSemaphore(value: 0)
        let reading = Responder(
            callID: 5, method: WaterV1.ExportRequest.method.fullName,
            deliver: { envelope, _ in if envelope.endOfStream { finished.signal() } },
            deliverFramed: { _, next in next() }, writer: FrameWriter(maximumPayloadLength: 1 << 20),
            onCancel: { _ in })
        try h.transfer.export(WaterV1.ExportRequest(), call, responder: reading)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(h.services.sessionStreams.count == 0)

        // A peer that reads nothing: the export waits after its first chunk, still listed.
        let paused = Stream()
        try h.transfer.export(WaterV1.ExportRequest(), call, responder: paused.responder)
        #expect(h.services.sessionStreams.count == 1)
        _ = try h.call(h.accounts.logout, WaterV1.LogoutRequest(), by: caller).get()
        #expect(paused.endings.withLock { $0 } == [SessionStreams.sessionEnded])
        #expect(h.services.sessionStreams.count == 0)
    }
}

@Suite("Archive effects")
struct ArchiveEffectsTests {
    @Test(
        "through the handlers: a login, a todo item and a password reset tell no board; a member added, renamed, or a drink, do"
    )
    func boardChanges() throws {
        let h = try HandlerHarness()
        let changes = Locked(0)
        h.services.boards.onChange { changes.withLock { $0 += 1 } }
        // A write's notice is told after its reply (by the committer's leader, here a hashing
        // thread for the account calls): flush waits for it, so it counts in its own write.
        func changed(_ write: () throws -> Void) rethrows -> Int {
            let before = changes.withLock { $0 }
            try write()
            h.services.store.committer.flush()
            return changes.withLock { $0 } - before
        }
        #expect(try changed { _ = try h.addMember("bea") } >= 1)
        #expect(try changed { _ = try h.login("bea") } == 0)
        #expect(
            try changed {
                _ = try h.call(
                    h.todo.addTodo, WaterV1.AddTodoRequest(itemID: newID(), text: "milk"), as: h.admin
                ).get()
            } == 0)
        #expect(
            try changed {
                _ = try h.call(
                    h.accounts.resetPassword,
                    WaterV1.ResetPasswordRequest(username: "bea", newPassword: "bea-password-2"), as: h.admin
                ).get()
            } == 0)
        #expect(
            try changed {
                _ = try h.call(
                    h.accounts.renameMember, WaterV1.RenameMemberRequest(username: "bea", newDisplayName: "Bea B"),
                    as: h.admin
                ).get()
            } == 1)
        #expect(
            try changed {
                _ = try h.call(
                    h.tracker.logWater, WaterV1.LogWaterRequest(entryID: newID(), amountMl: 250), as: h.admin
                ).get()
            } == 1)
    }

    static let digest = TokenDigest(bytes: [UInt8](repeating: 7, count: 32))!
    static let account = SessionStreamsTests.caller(4, session: 0).account

    @Test("what changes a board and what ends sessions: a login, a todo item or a password change no board")
    func effects() {
        let session = Session(digest: Self.digest, memberID: 4, expiresAtUnixMilliseconds: 1)
        let login = ArchiveEffects([AccountMutation.sessionEnded(Self.digest), .sessionStarted(session)])
        #expect(!login.changesBoard && login.endedSessions == EndedSessions(sessions: [Self.digest]))
        let password = ArchiveEffects([AccountMutation.passwordSet(memberID: 4, hash: "x"), .sessionStarted(session)])
        #expect(!password.changesBoard && password.endedSessions == EndedSessions(members: [4]))
        let removed = ArchiveEffects([AccountMutation.removed(memberID: 4, atUnixMilliseconds: nil)])
        #expect(removed.changesBoard && removed.endedSessions == EndedSessions(removedMembers: [4]))
        for changed in [AccountMutation.added(Self.account), .changed(Self.account)] {
            #expect(ArchiveEffects([changed]) == ArchiveEffects(changesBoard: true))
        }
        #expect(ArchiveEffects([MemberMutation.privacySet(.hidden, from: nil)]) == ArchiveEffects(changesBoard: true))
        #expect(ArchiveEffects([MemberMutation]()) == ArchiveEffects())
    }
}
