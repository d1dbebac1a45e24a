import Foundation
import Glibc
import Testing
import WaterClient
import WaterProtocol
import WaterTransport

/// A blocking TCP connection to `server` whose source is the loopback address `source`: a
/// second device on the same machine (127.0.0.2), as the throttle and the hash queue see it.
private func connection(from source: String, to server: HostPort) throws -> Socket {
    let socket = Socket(descriptor: Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0))
    func succeeds(_ host: String, _ port: UInt16, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Bool
    {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                call(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
    guard socket.descriptor >= 0, succeeds(source, 0, bind), succeeds(server.host, server.port, Glibc.connect) else {
        socket.close()
        throw SocketError(operation: "connect from \(source)", errno: errno)
    }
    try socket.setReceiveTimeout(milliseconds: 10_000)
    return socket
}

/// Reads replies until `count` have come, the server closes, or it says nothing for the
/// receive timeout.
private func replies(_ count: Int, on socket: Socket) throws -> [UInt64: WaterV1.ResponseEnvelope] {
    var decoder = FrameDecoder(maximumPayloadLength: 1 << 20)
    var buffer = [UInt8](repeating: 0, count: 65536)
    var replies: [UInt64: WaterV1.ResponseEnvelope] = [:]
    while replies.count < count, let read = try buffer.withUnsafeMutableBytes({ try socket.read(into: $0) }), read > 0 {
        decoder.append(buffer[0..<read])
        while let frame = try decoder.nextFrame() {
            let reply = try WaterV1.ResponseEnvelope(serializedBytes: frame.payload)
            replies[reply.callID] = reply
        }
    }
    return replies
}

private func loginFrame(_ callID: UInt64, _ username: String, _ password: String) -> [UInt8] {
    FrameEncoder.frame(
        flags: [],
        wirePayload: WaterV1.RequestEnvelope(
            callID: callID, request: WaterV1.LoginRequest(username: username, password: password)
        ).serializedBytes())
}

@Suite("Password guessing, end to end", .serialized)
struct PasswordGuessingTests {
    @Test(
        "128 logins pipelined at once from one device: 3 are hashed, the right password at #128 does not log in, and the member logs in from their own"
    )
    func pipelinedGuesses() throws {
        let server = try ServerProcess.fresh(["--max-calls", "200"])
        let guesser = try connection(from: "127.0.0.2", to: server.address)
        defer { guesser.close() }
        let frames =
            handshakeFrame()
            + (2...128).flatMap { loginFrame(UInt64($0), "mum", "guess number \($0)") }
            + loginFrame(129, "mum", adminPassword)
        _ = try frames.withUnsafeBytes { try guesser.write($0) }
        let answers = try replies(129, on: guesser)
        #expect(answers.count == 129)
        let logins = (2...129).map { answers[UInt64($0)]?.statusCode }
        #expect(logins.filter { $0 == .unauthenticated }.count == LoginThrottleLimit.free)
        #expect(logins.filter { $0 == .resourceExhausted }.count == 128 - LoginThrottleLimit.free)
        #expect(logins.last == .resourceExhausted, "the right password, last, is not checked")
        // The member's own device (127.0.0.1) is not slowed by any of it.
        let mum = try server.client("mum", password: adminPassword)
        #expect(try mum.call(WaterV1.WhoAmIRequest()).member?.username == "mum")
        #expect(server.stop() == 0)
    }

    @Test("ChangePassword with wrong current passwords is throttled like a login, and the right one then waits too")
    func changePasswordGuesses() throws {
        let server = try ServerProcess.fresh()
        let mum = try server.client("mum", password: adminPassword)
        for n in 0..<LoginThrottleLimit.free {
            expectCode(.unauthenticated) {
                try mum.call(
                    WaterV1.ChangePasswordRequest(currentPassword: "guess \(n)", newPassword: "a brand new password"))
            }
        }
        expectCode(.resourceExhausted) {
            try mum.call(
                WaterV1.ChangePasswordRequest(currentPassword: adminPassword, newPassword: "a brand new password"))
        }
        #expect(server.stop() == 0)
    }
}
