import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterSync
import WaterTestSupport

/// A `WatchBoard` on a connection of its own, read on a thread of its own: the boards it got,
/// and how it ended. One still going when the server stops ends then (UNAVAILABLE).
final class BoardWatch: @unchecked Sendable {
    let boards = Locked<[WaterV1.WeeklyBoard]>([])
    private let ending = Locked<Result<Void, WaterError>?>(nil)
    private let client: WaterClient

    /// Starts watching as the holder of `token` (the client of ``ServerProcess/client(_:password:)``
    /// lends its token: the stream then runs under the same session).
    init(_ server: ServerProcess, token: [UInt8]) throws {
        client = try WaterClient(
            configuration: ClientConfiguration(server: server.address, security: server.security), token: token)
        let thread = Thread { [self] in
            let result = Result { () throws(WaterError) in
                try client.stream(WaterV1.WatchBoardRequest()) { response in
                    boards.withLock { $0.append(response.board ?? WaterV1.WeeklyBoard()) }
                    return true
                }
            }
            ending.withLock { $0 = result }
        }
        thread.start()
    }

    /// Waits (at most a minute) until it has `count` boards; the boards it has then.
    @discardableResult
    func waitForBoards(_ count: Int) -> [WaterV1.WeeklyBoard] {
        _ = waitUntil(seconds: 60) { boards.withLock { $0.count } >= count }
        return boards.withLock { $0 }
    }

    /// Waits (at most a minute) until the stream ends; the error it ended with (nil: it has not
    /// ended, or ended OK).
    func waitForEnd() -> WaterError? {
        _ = waitUntil(seconds: 60) { ending.withLock { $0 } != nil }
        guard case .failure(let error) = ending.withLock({ $0 }) else { return nil }
        return error
    }

    var hasEnded: Bool { ending.withLock { $0 } != nil }
}

/// Streams live and die with their session, and are sent only boards that changed (issue 31
/// items 1 and 3).
@Suite("WatchBoard and its session, end to end", .serialized)
struct WatchBoardLifeTests {
    static let beaPassword = "bea-password-1"

    /// A server with mum (admin) and bea, each logged in on a connection of their own.
    private func household(_ options: [String] = []) throws -> (ServerProcess, mum: WaterClient, bea: WaterClient) {
        let server = try ServerProcess.fresh(options)
        let mum = try server.client("mum", password: adminPassword)
        _ = try mum.call(WaterV1.AddMemberRequest(username: "bea", password: Self.beaPassword))
        return (server, mum, try server.client("bea", password: Self.beaPassword))
    }

    /// Expects `watch` to have ended as a stream whose session ended does.
    private func expectSessionEnded(_ watch: BoardWatch, _ how: String) {
        let error = watch.waitForEnd()
        #expect(error?.code == .unauthenticated, "\(how): \(String(describing: error))")
        #expect(error?.message == "your session ended: run water-client login", "\(how)")
    }

    /// A drink of `amount` by `client`.
    private func drink(_ client: WaterClient, _ amount: Int32) throws {
        _ = try client.call(WaterV1.LogWaterRequest(entryID: client.newID().description, amountMl: amount))
    }

    @Test("Logout ends every stream of that session at once; another session's stream goes on")
    func logout() throws {
        let (server, mum, bea) = try household()
        let ended = try BoardWatch(server, token: bea.token)
        let other = try BoardWatch(server, token: try server.client("bea", password: Self.beaPassword).token)
        ended.waitForBoards(1)
        other.waitForBoards(1)
        _ = try bea.call(WaterV1.LogoutRequest())
        expectSessionEnded(ended, "logout")
        try drink(mum, 300)
        #expect(other.waitForBoards(2).last?.rows.first { $0.username == "mum" }?.totalMl == 300)
        #expect(!other.hasEnded)
        #expect(server.stop() == 0)
    }

    @Test("ChangePassword, an admin's reset and the member's removal end the member's streams")
    func passwordsAndRemoval() throws {
        let (server, mum, bea) = try household()
        let changed = try BoardWatch(server, token: bea.token)
        changed.waitForBoards(1)
        let newSession = try bea.call(
            WaterV1.ChangePasswordRequest(currentPassword: Self.beaPassword, newPassword: "bea-password-2"))
        expectSessionEnded(changed, "change password")

        let reset = try BoardWatch(server, token: newSession.authToken)
        reset.waitForBoards(1)
        _ = try mum.call(WaterV1.ResetPasswordRequest(username: "bea", newPassword: "bea-password-3"))
        expectSessionEnded(reset, "reset")

        let removed = try BoardWatch(server, token: try server.client("bea", password: "bea-password-3").token)
        let mumsOwn = try BoardWatch(server, token: mum.token)
        removed.waitForBoards(1)
        mumsOwn.waitForBoards(1)
        _ = try mum.call(WaterV1.RemoveMemberRequest(username: "bea"))
        // Issue 32, item 13: a removed member's stream says why, not "log in again".
        let ending = removed.waitForEnd()
        #expect(ending?.code == .permissionDenied, "\(String(describing: ending))")
        #expect(ending?.message.hasPrefix("you are no longer a member of this household") == true)
        // The admin's board drops bea: a board-changing write, seen live.
        #expect(mumsOwn.waitForBoards(2).last?.rows.map(\.username) == ["mum"])
        #expect(!mumsOwn.hasEnded)
        #expect(server.stop() == 0)
    }

    @Test("board --watch stops at logout with the reason, and does not try again")
    func commandLineWatchStops() throws {
        let server = try ServerProcess.fresh()
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let watch = try ChildProcess(
            productsDirectory.appendingPathComponent("water-client").path, ["--json", "board", "--watch"],
            environment: mum.environment)
        _ = watch.readOutput(until: { $0.contains("\n") }, seconds: 60)
        #expect(try mum.run(["logout"]).status == 0)
        let ended = waitUntil(seconds: 60) { !watch.isRunning }
        if !ended { kill(watch.pid, SIGTERM) }
        let status = watch.wait()
        #expect(ended && status != 0, "it ends by itself, with a failure")
        #expect(watch.errorText.contains("your session ended: run water-client login"), "\(watch.errorText)")
        #expect(!watch.errorText.contains("trying again"))
        #expect(server.stop() == 0)
    }

    @Test("a stream ends when its session expires, though its connection is busy with it")
    func expiry() throws {
        var server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        let expiresAt = try mum.call(WaterV1.WhoAmIRequest()).sessionExpiresAtUnixMs
        // The same data a few seconds before that session's end (the clock taken as stated).
        server = try server.restarted(["--clock", "\(expiresAt - 8_000)"])
        let watch = try BoardWatch(server, token: mum.token)
        #expect(watch.waitForBoards(1).count == 1, "the session was still live when the stream began")
        expectSessionEnded(watch, "expiry")
        #expect(server.stop() == 0)
    }

    @Test("a hidden member's drink sends nothing to another's watch; a visible member's drink does")
    func onlyChangedBoards() throws {
        let (server, mum, bea) = try household()
        let kid = try {
            _ = try mum.call(WaterV1.AddMemberRequest(username: "kid", password: "kid-password-1"))
            return try server.client("kid", password: "kid-password-1")
        }()
        _ = try kid.call(WaterV1.SetPrivacyRequest(privacy: .hidden))
        let mumsWatch = try BoardWatch(server, token: mum.token)
        let kidsWatch = try BoardWatch(server, token: kid.token)
        #expect(mumsWatch.waitForBoards(1).first?.rows.map(\.username) == ["bea", "mum"])
        kidsWatch.waitForBoards(1)
        try drink(kid, 250)
        // The kid's own board shows it: the change has been sent to every watcher it changed.
        #expect(kidsWatch.waitForBoards(2).last?.rows.first { $0.username == "kid" }?.totalMl == 250)
        try drink(bea, 400)
        let boards = mumsWatch.waitForBoards(2)
        #expect(boards.count == 2)
        #expect(boards.last?.rows.first { $0.username == "bea" }?.totalMl == 400, "the second board is bea's drink")
        #expect(boards.allSatisfy { !$0.rows.contains { $0.username == "kid" } })
        #expect(server.stop() == 0)
    }

    @Test("a member added and renamed shows on a live board with no drink logged in between")
    func membersOnTheLiveBoard() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        let watch = try BoardWatch(server, token: mum.token)
        #expect(watch.waitForBoards(1).first?.rows.map(\.username) == ["mum"])
        _ = try mum.call(WaterV1.AddMemberRequest(username: "papa", password: "papa-password-1"))
        #expect(watch.waitForBoards(2).last?.rows.map(\.username) == ["mum", "papa"])
        _ = try mum.call(WaterV1.RenameMemberRequest(username: "papa", newDisplayName: "Papa Bear"))
        #expect(watch.waitForBoards(3).last?.rows.first { $0.username == "papa" }?.displayName == "Papa Bear")
        _ = try mum.call(WaterV1.RemoveMemberRequest(username: "papa"))
        #expect(watch.waitForBoards(4).last?.rows.map(\.username) == ["mum"])
        _ = try mum.call(WaterV1.RestoreMemberRequest(username: "papa"))
        #expect(watch.waitForBoards(5).last?.rows.map(\.username) == ["mum", "papa"])
        #expect(server.stop() == 0)
    }
}
