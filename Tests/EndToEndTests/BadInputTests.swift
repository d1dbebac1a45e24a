import Foundation
import Glibc
import Testing
import WaterClient
import WaterCore
import WaterProtocol
import WaterTransport

/// Sends raw bytes on a fresh connection and returns what the server sent back: every reply
/// until it closed the connection, or until `done` says the replies are all there (for a
/// connection the server keeps open). `seconds` bounds it for a server that is stuck; a slow
/// one is waited for.
func exchange(
    _ address: HostPort, _ bytes: [UInt8], until done: ([WaterV1.ResponseEnvelope]) -> Bool = { _ in false },
    seconds: Int = 30
) throws -> (replies: [WaterV1.ResponseEnvelope], closed: Bool) {
    let socket = try Socket.connect(to: address)
    defer { socket.close() }
    return try exchange(on: socket, bytes, until: done, seconds: seconds)
}

/// ``exchange(_:_:until:seconds:)`` on a connection already open.
func exchange(
    on socket: Socket, _ bytes: [UInt8], until done: ([WaterV1.ResponseEnvelope]) -> Bool = { _ in false },
    seconds: Int = 30
) throws -> (replies: [WaterV1.ResponseEnvelope], closed: Bool) {
    try socket.setReceiveTimeout(milliseconds: 100)
    _ = bytes.withUnsafeBytes { try? socket.write($0) }
    var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
    var replies: [WaterV1.ResponseEnvelope] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !done(replies), ContinuousClock.now < deadline {
        guard let count = try buffer.withUnsafeMutableBytes({ try socket.read(into: $0) }) else { continue }
        if count == 0 { return (replies, true) }
        decoder.append(buffer[0..<count])
        while let frame = try decoder.nextFrame() {
            replies.append(try WaterV1.ResponseEnvelope(serializedBytes: frame.payload))
        }
    }
    return (replies, false)
}

/// Whether the replies include one to call `callID`: for ``exchange(_:_:until:seconds:)``.
func answered(_ callID: UInt64) -> ([WaterV1.ResponseEnvelope]) -> Bool {
    { replies in replies.contains { $0.callID == callID } }
}

func handshakeFrame() -> [UInt8] {
    FrameEncoder.frame(
        flags: [],
        wirePayload: WaterV1.RequestEnvelope(
            callID: 1, request: WaterV1.HandshakeRequest(protocolVersion: WireProtocol.version)
        ).serializedBytes())
}

func expectCode<T>(
    _ code: WaterV1.StatusCode, _ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(sourceLocation: sourceLocation) { _ = try body() } throws: { ($0 as? WaterError)?.code == code }
}

@Suite("Bad input, end to end", .serialized)
struct BadInputTests {
    @Test("out-of-range amounts, goals and cups, future times and unknown ids are refused and change nothing")
    func rangesAndIDs() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        for amount: Int32 in [-1, 2001, 5000, .min, .max] {
            expectCode(.invalidArgument) {
                try mum.call(WaterV1.LogWaterRequest(entryID: mum.newID().description, amountMl: amount))
            }
        }
        for goal: Int32 in [499, 10_001, -2000] {
            expectCode(.invalidArgument) { try mum.call(WaterV1.SetGoalRequest(dailyGoalMl: goal)) }
        }
        for cup: Int32 in [-1, 2001] {
            expectCode(.invalidArgument) { try mum.call(WaterV1.SetUsualCupRequest(usualCupMl: cup)) }
        }
        expectCode(.invalidArgument) {
            try mum.call(
                WaterV1.LogWaterRequest(
                    entryID: mum.newID().description, amountMl: 250, atUnixMs: UnixTime.nowMilliseconds() + 3_600_000))
        }
        expectCode(.invalidArgument) { try mum.call(WaterV1.LogWaterRequest(entryID: "not-a-uuid", amountMl: 250)) }
        expectCode(.notFound) { try mum.call(WaterV1.DeleteWaterRequest(entryID: mum.newID().description)) }
        expectCode(.notFound) {
            try mum.call(WaterV1.EditWaterRequest(entryID: mum.newID().description, amountMl: 300))
        }
        expectCode(.notFound) { try mum.call(WaterV1.UndoWaterRequest()) }
        expectCode(.invalidArgument) { try mum.call(WaterV1.GetHistoryRequest(days: 0)) }
        expectCode(.invalidArgument) { try mum.call(WaterV1.GetBoardRequest(week: "2099-W01")) }
        let today = try mum.call(WaterV1.GetTodayRequest())
        #expect(today.entries.isEmpty && today.settings?.dailyGoalMl == 2000 && today.settings?.usualCupMl == 250)
        // The command line says what to do, in one line, with exit code 65.
        let cli = server.cli("mum")
        #expect(try cli.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        let refused = try cli.run(["log", "2500"])
        #expect(refused.status == 65)
        #expect(
            refused.error
                == "water-client: a drink must be between 1 and 2000 ml, got 2500 (log it as two drinks if it really was)\n"
        )
        #expect(try cli.run(["log", "--at", "tomorrow"]).status == 64)
        #expect(server.stop() == 0)
    }

    @Test("wrong passwords, unknown users, garbage, expired and revoked tokens, and calls before login")
    func authentication() throws {
        var server = try ServerProcess.fresh()
        let anonymous = try WaterClient(
            configuration: ClientConfiguration(server: server.address, security: .plaintext))
        expectCode(.unauthenticated) { try anonymous.login(username: "mum", password: "wrong-password") }
        expectCode(.unauthenticated) { try anonymous.login(username: "nobody", password: "wrong-password") }
        expectCode(.unauthenticated) { try anonymous.call(WaterV1.GetTodayRequest()) }
        anonymous.token = [UInt8](repeating: 7, count: 32)
        expectCode(.unauthenticated) { try anonymous.call(WaterV1.GetTodayRequest()) }
        anonymous.token = [1, 2, 3]
        expectCode(.unauthenticated) { try anonymous.call(WaterV1.GetTodayRequest()) }
        // Revoked by logout.
        let mum = try server.client("mum", password: adminPassword)
        let token = mum.token
        _ = try mum.call(WaterV1.LogoutRequest())
        expectCode(.unauthenticated) { try mum.call(WaterV1.GetTodayRequest()) }
        // Repeated failures are throttled, for a real user and an unknown one alike.
        for name in ["mum", "ghost"] {
            for _ in 0..<LoginThrottleLimit.free { _ = try? anonymous.login(username: name, password: "guess-guess") }
            expectCode(.resourceExhausted) { try anonymous.login(username: name, password: "guess-guess") }
        }
        // Expired: 91 days later the token from a new login no longer works.
        server = try server.restarted()
        let again = try server.client("mum", password: adminPassword)
        let later = try server.restarted(["--clock", "\(UnixTime.nowMilliseconds() + 91 * 86_400_000)"])
        let stale = try WaterClient(
            configuration: ClientConfiguration(server: later.address, security: .plaintext), token: again.token)
        expectCode(.unauthenticated) { try stale.call(WaterV1.WhoAmIRequest()) }
        #expect(token != again.token)
        let cli = later.cli("x")
        #expect(try cli.run(["login", "mum", "--password-stdin"], input: "wrong\n").status == 77)
        #expect(later.stop() == 0)
    }
}

/// How many failures LoginThrottle lets through before it starts to slow logins down.
enum LoginThrottleLimit {
    static let free = 3
}
